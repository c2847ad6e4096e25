"""Row readers for local files and Hugging Face datasets; every reader streams.

A reader yields ``(row_index, line, row_dict)``: ``row_index`` counts rows from 0 (the positional
sample id), ``line`` is where the row sits for error messages (the file line of a JSONL row, else the
1-based row number). Rows are never all held in memory, except for a plain JSON file, which must be
parsed whole by nature.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from omnieval.errors import SourceError, TaskFileError
from omnieval.store.jsonl import json_objects

__all__ = ["count_rows", "read_located_rows", "read_rows", "row_unit"]

Row = dict[str, Any]
Located = Iterator[tuple[int, int, Row]]


def _numbered(rows: Iterator[tuple[int, Row]]) -> Located:
    for index, row in rows:
        yield index, index + 1, row


def _jsonl(path: Path, columns: list[str] | None = None) -> Located:
    def bad(lineno: int, reason: str) -> SourceError:
        return SourceError(f"line {lineno} is {reason}", path=str(path))

    for index, (lineno, row) in enumerate(json_objects(path, error=bad)):
        yield index, lineno, row


def _json(path: Path, columns: list[str] | None = None) -> Located:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SourceError(f"not valid JSON ({exc.msg} at line {exc.lineno})", path=str(path)) from None
    if isinstance(data, dict):
        data = data.get("data", data.get("samples", data.get("test")))
        if isinstance(data, dict):  # MERA-style {"data": {"test": [...]}}
            data = data.get("test")
    if not isinstance(data, list):
        raise SourceError("expected a list of objects (or {'data': [...]})", path=str(path))
    for index, row in enumerate(data):
        if not isinstance(row, dict):
            raise SourceError(f"item {index} is not an object", path=str(path))
        yield index, index + 1, row


def _csv(path: Path, columns: list[str] | None = None, *, delimiter: str = ",") -> Located:
    with path.open(encoding="utf-8", newline="") as fh:
        yield from _numbered(enumerate(csv.DictReader(fh, delimiter=delimiter)))


def _tsv(path: Path, columns: list[str] | None = None) -> Located:
    yield from _csv(path, columns, delimiter="\t")


def _parquet(path: Path, columns: list[str] | None = None) -> Located:
    """Row groups in turn; ``columns`` (top-level names) reads only those, e.g. for an id scan."""
    import pyarrow.parquet as pq

    files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    index = 0
    for file in files:
        try:
            reader = pq.ParquetFile(file)
        except Exception as exc:
            raise SourceError(f"cannot read Parquet ({exc})", path=str(file)) from None
        wanted = [c for c in columns if c in reader.schema_arrow.names] if columns is not None else None
        for batch in reader.iter_batches(batch_size=256, columns=wanted):
            for row in batch.to_pylist():
                yield index, index + 1, row
                index += 1


def _hf(
    source_type: str, *, path: Path | None, name: str | None, split: str, config: str | None
) -> Iterator[tuple[int, Row]]:
    try:
        import datasets
    except ImportError:
        raise TaskFileError("reading Hugging Face datasets needs `pip install omnieval[datasets]`") from None
    if source_type == "hf_disk":
        loaded = datasets.load_from_disk(str(path))
        ds = loaded[split] if isinstance(loaded, datasets.DatasetDict) else loaded
    else:
        target = str(path) if source_type == "hf_folder" else name
        ds = datasets.load_dataset(target, config, split=split, streaming=source_type == "hf_hub")
    # Media columns stay undecoded ({bytes, path}): the media stage decodes them under its policy.
    for feature, kind in list((ds.features or {}).items()):
        if type(kind).__name__ in ("Image", "Audio", "Video"):
            ds = ds.cast_column(feature, type(kind)(decode=False))
    yield from enumerate(ds)


def read_located_rows(
    source_type: str,
    *,
    path: Path | None,
    name: str | None = None,
    split: str = "test",
    config: str | None = None,
    columns: list[str] | None = None,
) -> Located:
    """Stream ``(index, line, row)`` from a source; ``columns`` is a hint some formats use to read less."""
    if source_type in ("hf_disk", "hf_folder", "hf_hub"):
        yield from _numbered(_hf(source_type, path=path, name=name, split=split, config=config))
        return
    if path is None:
        raise TaskFileError(f"source type {source_type!r} needs a path")
    if not path.exists():
        raise SourceError("file not found", path=str(path))
    reader = {"jsonl": _jsonl, "json": _json, "csv": _csv, "tsv": _tsv, "parquet": _parquet}[source_type]
    yield from reader(path, columns)


def read_rows(
    source_type: str,
    *,
    path: Path | None,
    name: str | None = None,
    split: str = "test",
    config: str | None = None,
) -> Iterator[tuple[int, Row]]:
    """Stream ``(index, row)`` from a source."""
    for index, _, row in read_located_rows(source_type, path=path, name=name, split=split, config=config):
        yield index, row


def row_unit(source_type: str) -> str:
    """What the ``line`` of :func:`read_located_rows` counts in this format (for messages)."""
    return "line" if source_type == "jsonl" else "row"


def count_rows(source_type: str, *, path: Path | None) -> int | None:
    """Row count without reading the data, where the format allows it cheaply."""
    if path is None or not path.exists():
        return None
    if source_type == "jsonl":
        with path.open("rb") as fh:
            return sum(1 for line in fh if line.strip())
    if source_type == "parquet":
        import pyarrow.parquet as pq

        files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
        return sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    return None
