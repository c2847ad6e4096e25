"""``--tasks mera:ROOT`` (every dataset folder under ROOT) or ``mera:ROOT/RuSLUn`` (one dataset).

A dataset folder is a local copy of a dataset repository (``data/test-*.parquet``, optional
``data/shots-*.parquet``) or a ``save_to_disk`` directory (``test/*.arrow``, ``shots/*.arrow``).
Folder names match task names case-insensitively, ignoring ``-`` and ``_``. Rows are streamed by
row group, so a dataset is never held in memory whole.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from omnieval.benchmarks.mera.catalog import MeraTask, find_task
from omnieval.benchmarks.mera.em import LENIENCIES, Leniency
from omnieval.benchmarks.mera.rows import RowContext, row_id, row_to_sample
from omnieval.benchmarks.mera.specs import task_spec
from omnieval.benchmarks.mera.variants import decode_mapping, normalize_id
from omnieval.errors import TaskFileError
from omnieval.sources.ids import IdLedger
from omnieval.sources.importers import register_importer
from omnieval.sources.task import Task
from omnieval.types import Sample

__all__ = ["import_mera", "load_dataset_dir", "split_files", "split_leniency"]

_BATCH = 64


def split_files(dataset_dir: Path, split: str) -> list[Path]:
    """The files of one split, in the layouts a dataset copy may have.

    ``data/<split>-*.parquet`` (the Hub's default), ``data/<split>.parquet``, ``data/<split>/*.parquet``,
    ``<split>/*.parquet`` and ``default/<split>/*.parquet`` (the Hub's parquet conversion), or
    ``<split>/*.arrow`` (``save_to_disk``). The first layout that has files wins.
    """
    data = dataset_dir / "data"
    patterns = (
        (data, f"{split}-*.parquet"),
        (data, f"{split}.parquet"),
        (data / split, "*.parquet"),
        (dataset_dir / split, "*.parquet"),
        (dataset_dir / "default" / split, "*.parquet"),
        (dataset_dir / split, "*.arrow"),
    )
    for folder, pattern in patterns:
        found = sorted(folder.glob(pattern))
        if found:
            return found
    return []


def _iter_rows(path: Path, *, columns: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """Rows by batch; ``columns`` reads only those top-level columns of a Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if path.suffix == ".parquet":
            parquet = pq.ParquetFile(path)
            wanted = [c for c in columns if c in parquet.schema_arrow.names] if columns is not None else None
            for batch in parquet.iter_batches(batch_size=_BATCH, columns=wanted):
                yield from batch.to_pylist()
        else:
            with pa.memory_map(str(path)) as source:
                try:
                    reader = pa.ipc.open_stream(source)
                except pa.ArrowInvalid:
                    reader = pa.ipc.open_file(source)  # type: ignore[assignment]
                for batch in reader:
                    yield from batch.to_pylist()
    except (OSError, pa.ArrowException) as exc:
        raise TaskFileError(f"cannot read dataset file ({exc})", path=str(path)) from None


def _count(files: list[Path]) -> int | None:
    import pyarrow.parquet as pq

    if not all(f.suffix == ".parquet" for f in files):
        return None
    return sum(pq.ParquetFile(f).metadata.num_rows for f in files)


def _min_id(files: list[Path]) -> int:
    """The smallest integer ``meta.id`` (ruTiE turns are numbered from it); other ids are skipped."""
    ids: list[int] = []
    for f in files:
        for row in _iter_rows(f, columns=["meta"]):
            meta = decode_mapping(row.get("meta"))
            ident = normalize_id(meta.get("id")) if isinstance(meta, dict) else None
            if ident is not None and ident.lstrip("-").isdigit():
                ids.append(int(ident))
    return min(ids) if ids else 0


def _answers_hidden(files: list[Path]) -> bool:
    """True when every ``outputs`` is empty or the column is absent (a private test set)."""
    import pyarrow.parquet as pq

    for f in files:
        if f.suffix == ".parquet":
            if "outputs" not in pq.ParquetFile(f).schema_arrow.names:
                continue
            rows: Any = pq.read_table(f, columns=["outputs"]).to_pylist()
        else:
            rows = _iter_rows(f)
        if any(r.get("outputs") not in (None, "", {}, []) for r in rows):
            return False
    return True


def _ledger(task: MeraTask, dataset_dir: Path) -> IdLedger:
    return IdLedger(path=f"{dataset_dir} (task {task.name})", field="meta.id")


def _sample_stream(task: MeraTask, dataset_dir: Path, files: list[Path]) -> Iterator[Sample]:
    min_id = _min_id(files) if task.dialogue else 0
    ledger = _ledger(task, dataset_dir)
    for path in files:
        ctx = RowContext(task, dataset_dir, path, min_id=min_id)
        for number, row in enumerate(_iter_rows(path), 1):
            sample = row_to_sample(ctx, row)
            ledger.add(sample.id, f"{path.name} row {number}")
            yield sample


def _scan_ids(task: MeraTask, dataset_dir: Path, files: list[Path]) -> None:
    """Only the ``meta`` column of each file: duplicates fail before a run's first request."""
    min_id = _min_id(files) if task.dialogue else 0
    ledger = _ledger(task, dataset_dir)
    for path in files:
        ctx = RowContext(task, dataset_dir, path, min_id=min_id)
        for number, row in enumerate(_iter_rows(path, columns=["meta"]), 1):
            ledger.add(row_id(ctx, decode_mapping(row.get("meta"))), f"{path.name} row {number}")


def _fingerprint(files: list[Path]) -> str:
    h = hashlib.sha256()
    for f in files:
        st = f.stat()
        h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def _snapshot_dir(dataset_dir: Path) -> Path:
    """A Hub cache folder (``datasets--MERA-evaluation--X/snapshots/<rev>/``) → its newest snapshot."""
    snapshots = dataset_dir / "snapshots"
    if split_files(dataset_dir, "test") or not snapshots.is_dir():
        return dataset_dir
    revisions = sorted((p for p in snapshots.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    return revisions[-1] if revisions else dataset_dir


def load_dataset_dir(
    dataset_dir: Path, *, task: MeraTask | None = None, lenient: Leniency = Leniency()
) -> Task:
    """One MERA task from its dataset folder."""
    task = task or find_task(dataset_dir.name)
    if task is None:
        raise TaskFileError(
            "folder name matches no MERA Multi task (e.g. RuSLUn, ruHHH-Image)", path=str(dataset_dir)
        )
    dataset_dir = _snapshot_dir(dataset_dir)
    test = split_files(dataset_dir, "test")
    if not test:
        raise TaskFileError(
            f"{task.name}: missing split 'test' (expected data/test-*.parquet or test/*.arrow)",
            path=str(dataset_dir),
        )
    shots = split_files(dataset_dir, "shots")
    spec = task_spec(task, dataset_dir=dataset_dir, answers_hidden=_answers_hidden(test), lenient=lenient)
    demos = (lambda: _sample_stream(task, dataset_dir, shots)) if shots else None
    return Task(
        spec=spec,
        iter_samples=lambda: _sample_stream(task, dataset_dir, test),
        check_ids=lambda: _scan_ids(task, dataset_dir, test),
        base_dir=dataset_dir,
        size=_count(test),
        iter_demos=demos,
        data_fingerprint=_fingerprint(test),
        origin=f"mera:{dataset_dir}",
        extra={"mera_task": task.name, "submission_name": task.submission},
    )


def _is_dataset(path: Path) -> bool:
    return (
        bool(split_files(path, "test")) or (path / "data").is_dir() or (path / "dataset_dict.json").exists()
    )


def _subdirs(path: Path) -> list[Path]:
    return sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def _candidate_dirs(root: Path) -> list[Path]:
    """Dataset folders under ROOT, and one level below a folder that is no task
    (``ROOT/MERA-evaluation/X``)."""
    out: list[Path] = []
    for child in _subdirs(root):
        if find_task(child.name) is None and not _is_dataset(child):
            out += [p for p in _subdirs(child) if find_task(p.name) is not None]
        else:
            out.append(child)
    return out


def split_leniency(spec: str) -> tuple[str, Leniency]:
    """``ROOT?lenient=fold_yo,nfkc`` → (ROOT, leniencies); ``lenient=all`` turns on every one."""
    path, _, query = spec.partition("?")
    options = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    unknown = sorted(set(options) - {"lenient"})
    if unknown:
        raise TaskFileError(f"mera: unknown option(s) {unknown}; known: lenient", path=path)
    names = [n.strip() for n in options.get("lenient", "").split(",") if n.strip()]
    if names == ["all"]:
        names = list(LENIENCIES)
    bad = sorted(set(names) - set(LENIENCIES))
    if bad:
        raise TaskFileError(f"mera: unknown leniency {bad}; known: {', '.join(LENIENCIES)}, all", path=path)
    return path, Leniency(**{n: True for n in names})


@register_importer("mera")
def import_mera(spec: str) -> list[Task]:
    """Tasks for ``mera:ROOT`` (all dataset folders) or ``mera:ROOT/<Dataset>`` (one), ``?lenient=...``
    optional."""
    path, lenient = split_leniency(spec)
    root = Path(path).expanduser()
    if not root.is_dir():
        raise TaskFileError("not a directory", path=str(root))
    if split_files(root, "test") or (_is_dataset(root) and find_task(root.name) is not None):
        return [
            load_dataset_dir(root, lenient=lenient)
        ]  # one dataset; an unknown folder name is an error naming it
    tasks: list[Task] = []
    names: dict[str, Path] = {}
    for child in _candidate_dirs(root):
        task = find_task(child.name)
        if task is None:
            continue
        if task.name in names:
            raise TaskFileError(
                f"task {task.name!r} found twice: {names[task.name]} and {child}", path=str(root)
            )
        names[task.name] = child
        tasks.append(load_dataset_dir(child, task=task, lenient=lenient))
    if not tasks:
        raise TaskFileError(
            "no MERA dataset folders found (expected e.g. ROOT/RuSLUn/data/test-*.parquet)", path=str(root)
        )
    return tasks
