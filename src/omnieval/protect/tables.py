"""Media columns inside Parquet files (the layout HF datasets publish): mark cells, keep the rest."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from omnieval.errors import MediaError

__all__ = ["mark_arrow_images", "mark_parquet_images"]


def _is_image_column(column: Any) -> bool:
    import pyarrow as pa

    kind = column.type
    if pa.types.is_struct(kind):
        return kind.get_field_index("bytes") >= 0 and pa.types.is_binary(kind.field("bytes").type)
    return pa.types.is_binary(kind) or pa.types.is_large_binary(kind)


def _mark_table(table: Any, *, convert: Callable[[bytes], bytes], where: Path) -> tuple[Any, int]:
    """The table with every image cell passed through ``convert`` (schema and metadata kept), and the count."""
    import pyarrow as pa

    image_columns = [name for name in table.column_names if _is_image_column(table.column(name))]
    if not image_columns:
        raise MediaError(f"no image column (HF {{bytes, path}} struct or binary) among {table.column_names}", path=str(where))
    marked = 0
    for name in image_columns:
        column = table.column(name).combine_chunks()
        out: list[Any] = []
        for index, cell in enumerate(column.to_pylist()):
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
        table = table.set_column(table.column_names.index(name), table.schema.field(name), pa.array(out, type=column.type))
    return table, marked


def mark_parquet_images(source: Path, target: Path, *, convert: Callable[[bytes], bytes]) -> int:
    """Rewrite a Parquet file with its image cells marked; returns the cells marked."""
    import pyarrow.parquet as pq

    table, marked = _mark_table(pq.read_table(source), convert=convert, where=source)
    pq.write_table(table, target)
    return marked


def mark_arrow_images(source: Path, target: Path, *, convert: Callable[[bytes], bytes]) -> int:
    """The same for an Arrow stream file, the shard format of HF ``Dataset.save_to_disk`` folders."""
    import pyarrow as pa

    with pa.memory_map(str(source)) as raw:
        table = pa.ipc.open_stream(raw).read_all()
    table, marked = _mark_table(table, convert=convert, where=source)
    with pa.OSFile(str(target), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return marked
