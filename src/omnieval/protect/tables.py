"""Media columns inside Parquet and Arrow files (the layouts HF datasets publish): mark or read cells, keep
the rest."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from omnieval.errors import MediaError

__all__ = ["Media", "iter_media_cells", "mark_table_file"]

Media = Literal["image", "audio"]
CellFn = Callable[[bytes, str], bytes]
"""``(cell bytes, where) -> new bytes``; ``where`` names the file, row and column for errors."""


def _hf_feature_types(schema: Any) -> dict[str, str] | None:
    """Column → HF feature ``_type`` ("Image", "Audio", "Value", ...) when the file records its features."""
    raw = (schema.metadata or {}).get(b"huggingface")
    if raw is None:
        return None
    try:
        features = json.loads(raw)["info"]["features"]
    except (ValueError, KeyError, TypeError):
        return None
    return {name: str(f.get("_type", "")) if isinstance(f, dict) else "" for name, f in features.items()}


def _holds_bytes(column: Any) -> bool:
    """An HF ``{bytes, path}`` struct column or a plain binary column."""
    import pyarrow as pa

    kind = column.type
    if pa.types.is_struct(kind):
        return kind.get_field_index("bytes") >= 0 and pa.types.is_binary(kind.field("bytes").type)
    return bool(pa.types.is_binary(kind) or pa.types.is_large_binary(kind))


def _raw(cell: Any) -> bytes | None:
    raw: bytes | None = cell.get("bytes") if isinstance(cell, dict) else cell
    return raw


def _sniff(raw: bytes) -> Media | None:
    """What a cell holds, judged by its header: Pillow knows images, libsndfile knows audio."""
    import soundfile
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(raw)):
            return "image"
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        pass
    try:
        soundfile.info(io.BytesIO(raw))
    except (soundfile.LibsndfileError, RuntimeError, TypeError, ValueError, EOFError):
        return None
    return "audio"


def _media_columns(table: Any, media: Media, *, where: Path) -> list[str]:
    """Columns holding ``media``. HF feature types decide when the file records them (an Audio column is never
    taken for an image one); otherwise a bytes column counts unless its first cell is clearly the other kind,
    so an unreadable cell still fails by name instead of being skipped."""
    declared = _hf_feature_types(table.schema)
    names = []
    for name in table.column_names:
        column = table.column(name)
        if not _holds_bytes(column):
            continue
        if declared is not None and name in declared:
            if declared[name] == media.capitalize():
                names.append(name)
            continue
        first = next((raw for raw in map(_raw, column.to_pylist()) if raw is not None), None)
        if first is None or _sniff(first) in (media, None):
            names.append(name)
    if not names:
        raise MediaError(
            f"no {media} column (HF {{bytes, path}} struct or binary) among {table.column_names}",
            path=str(where),
        )
    return names


def _read(path: Path) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.suffix.lower() == ".parquet":
        return pq.read_table(path)
    with pa.memory_map(str(path)) as raw:
        return pa.ipc.open_stream(raw).read_all()


def _write(table: Any, path: Path) -> None:
    """Parquet stays Parquet; ``.arrow`` is the stream format of HF ``Dataset.save_to_disk`` shards."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.suffix.lower() == ".parquet":
        pq.write_table(table, path)
        return
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)


def mark_table_file(source: Path, target: Path, *, media: Media, convert: CellFn) -> int:
    """Rewrite a Parquet/Arrow file with every ``media`` cell passed through ``convert`` (schema, metadata and
    other columns kept); returns the cells marked."""
    import pyarrow as pa

    table = _read(source)
    marked = 0
    for name in _media_columns(table, media, where=source):
        column = table.column(name).combine_chunks()
        out: list[Any] = []
        for index, cell in enumerate(column.to_pylist()):
            raw = _raw(cell)
            if raw is None:
                out.append(cell)
                continue
            new = convert(raw, f"{source} (row {index}, column {name!r})")
            out.append({**cell, "bytes": new} if isinstance(cell, dict) else new)
            marked += 1
        field = table.schema.field(name)
        table = table.set_column(table.column_names.index(name), field, pa.array(out, type=column.type))
    _write(table, target)
    return marked


def iter_media_cells(source: Path, *, media: Media) -> Iterator[tuple[str, bytes]]:
    """``("column[row]", bytes)`` for every non-empty ``media`` cell of a Parquet/Arrow file."""
    table = _read(source)
    for name in _media_columns(table, media, where=source):
        for index, cell in enumerate(table.column(name).to_pylist()):
            raw = _raw(cell)
            if raw is not None:
                yield f"{name}[{index}]", raw
