"""MWS-Vision-Bench as its Hub repository's main branch publishes it: an *imagefolder* (one
``metadata.jsonl`` — ``file_name``, ``id``, ``type``, ``dataset_name``, ``question``, ``answers`` — beside the
image files), read as an alternative to the Parquet conversion.

``--tasks mws_vision:DIR`` reads the imagefolder when DIR (or one sub-folder of it) holds a
``metadata.jsonl``, and the Parquet files otherwise. Lines are streamed; each image is read when its
sample is built. Rows are the same :class:`~omnieval.sources.hub.HubRow` the Parquet reader gives, so
ids (the 0-based line position), prompts, errors and scoring are shared.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

from omnieval.errors import SourceError
from omnieval.sources.hub import HubBenchmark, HubRow, load_hub_tasks
from omnieval.sources.importers import importers
from omnieval.sources.task import Task
from omnieval.types import Sample

__all__ = ["metadata_files", "register_imagefolder_reader"]

METADATA = "metadata.jsonl"


def metadata_files(root: Path) -> list[Path]:
    """The imagefolder's metadata files: DIR's own, else those one folder down (in name order)."""
    own = root / METADATA
    return [own] if own.is_file() else sorted(root.glob(f"*/{METADATA}"))


def _rows(bench: HubBenchmark, files: list[Path]) -> Iterator[HubRow]:
    position = 0
    for file in files:
        with file.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines):
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SourceError(
                        f"{bench.name}: line {number + 1} is not JSON ({exc.msg})",
                        path=str(file),
                        sample_id=str(position),
                    ) from None
                row = HubRow(bench.name, file, None, number, position, data)
                name = data.get("file_name")
                image = file.parent / str(name) if name else None
                if image is None or not image.is_file():
                    raise row.error(f"the image file {name!r} is missing", field="file_name")
                data["image"] = {"bytes": image.read_bytes(), "path": str(name)}
                missing = [c for c in bench.columns if c not in data]
                if missing:
                    raise row.error(f"column(s) {missing} missing", field=missing[0])
                yield row
                position += 1


def _samples(bench: HubBenchmark, files: list[Path]) -> Iterator[Sample]:
    for row in _rows(bench, files):
        yield bench.to_sample(row)


def _count(files: list[Path]) -> int:
    total = 0
    for file in files:
        with file.open(encoding="utf-8") as lines:
            total += sum(1 for line in lines if line.strip())
    return total


def _fingerprint(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for file in files:
        stat = file.stat()
        digest.update(f"{file.parent.name}/{file.name}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:16]


def register_imagefolder_reader(bench: HubBenchmark) -> None:
    """Make ``BENCH:DIR`` read an imagefolder copy when DIR has one, the Parquet files otherwise."""

    def load(spec: str) -> list[Task]:
        path, _, query = spec.partition("?")
        root = Path(path).expanduser().resolve()
        files = metadata_files(root) if root.is_dir() and not query else []
        if not files:
            return load_hub_tasks(bench, spec)
        return [
            Task(
                spec=bench.spec(),
                iter_samples=lambda: _samples(bench, files),
                base_dir=root,
                size=_count(files),
                data_fingerprint=_fingerprint(files),
                origin=f"{bench.name}:{root}",
            )
        ]

    importers.add(bench.name, load, replace=True)
