"""Media columns inside Parquet files (the layout HF datasets publish): mark cells, keep the rest."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from omnieval.errors import MediaError

__all__ = ["mark_parquet_images"]


def _is_image_column(column: Any) -> bool:
    import pyarrow as pa

    kind = column.type
    if pa.types.is_struct(kind):
        return kind.get_field_index("bytes") >= 0 and pa.types.is_binary(kind.field("bytes").type)
    return pa.types.is_binary(kind) or pa.types.is_large_binary(kind)


def mark_parquet_images(source: Path, target: Path, *, convert: Callable[[bytes], bytes]) -> int:
    """Rewrite ``source`` to ``target`` with every image cell passed through ``convert``; returns cells marked."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(source)
    image_columns = [name for name in table.column_names if _is_image_column(table.column(name))]
    if not image_columns:
        raise MediaError(f"no image column (HF {{bytes, path}} struct or binary) among {table.column_names}", path=str(source))
    marked = 0
    for name in image_columns:
        column = table.column(name).combine_chunks()
        rows = column.to_pylist()
        out: list[Any] = []
        for index, cell in enumerate(rows):
            raw = cell.get("bytes") if isinstance(cell, dict) else cell
            if raw is None:
                out.append(cell)
                continue
            try:
                new = convert(raw)
            except MediaError as exc:
                raise MediaError(f"row {index}, column {name!r}: {exc}") from None
            out.append({**cell, "bytes": new} if isinstance(cell, dict) else new)
            marked += 1
        table = table.set_column(table.column_names.index(name), name, pa.array(out, type=column.type))
    pq.write_table(table, target)
    return marked
