"""Small copies of published benchmarks in their Hub layout, for tests (nothing is downloaded).

:func:`write_hub_copy` writes what ``huggingface-cli download --repo-type dataset ORG/NAME --local-dir DIR``
would leave for a registered :class:`~omnieval.sources.hub.HubBenchmark`: one Parquet file per config
sub-folder (or the file the benchmark names), named ``SPLIT-00000-of-00001.parquet``, with the Hub's
feature metadata (``huggingface`` schema key; images as ``{bytes, path}`` structs). Rows come from the
benchmark's ``example_row`` unless given; ``edit`` changes rows (bad data, chosen answers).
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["hub_row_ids", "tiny_png", "write_hub_copy", "write_parquet"]


def tiny_png(seed: int = 0, *, side: int = 2) -> bytes:
    """A valid ``side``×``side`` RGB PNG whose colour depends on ``seed`` (no Pillow needed)."""
    colour = bytes(((seed * 37) % 256, (seed * 91) % 256, (seed * 151) % 256))
    raw = b"".join(b"\x00" + colour * side for _ in range(side))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def write_parquet(
    path: Path, rows: list[dict[str, Any]], *, features: Mapping[str, Any], row_group_size: int = 64
) -> Path:
    """``rows`` as a Parquet file carrying the Hub's ``features`` metadata, ``row_group_size`` rows a
    group (several groups, so streaming is exercised)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    info = {"info": {"features": dict(features)}}
    table = table.replace_schema_metadata({b"huggingface": json.dumps(info).encode()})
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


def _bench(name: str) -> Any:
    from omnieval.sources.hub import hub_benchmarks

    return hub_benchmarks.get(name)


def write_hub_copy(
    name: str,
    root: str | Path,
    *,
    n: int = 8,
    configs: Iterable[str] | None = None,
    split: str | None = None,
    rows: Mapping[str | None, list[dict[str, Any]]] | None = None,
    edit: Callable[[int, dict[str, Any]], dict[str, Any] | None] | None = None,
    row_group_size: int = 64,
) -> Path:
    """A copy of benchmark ``name`` under ``root``: ``n`` rows per config (the benchmark's configs, or
    ``configs``), from its ``example_row`` or ``rows`` (by config; ``None`` for the root). ``edit(position,
    row)`` may change a row or return ``None`` to drop it. Returns ``root``."""
    bench = _bench(name)
    root = Path(root)
    split = split or bench.split
    chosen: list[str | None] = list(configs) if configs is not None else list(bench.configs or (None,))
    position = 0
    for config in chosen:
        if rows is not None:
            made = [dict(r) for r in rows.get(config, [])]
        else:
            if bench.example_row is None:
                raise ValueError(f"benchmark {name!r} has no example_row: pass rows=")
            made = [bench.example_row(position + i, config) for i in range(n)]
        if edit is not None:
            edited = [edit(position + i, row) for i, row in enumerate(made)]
            made = [row for row in edited if row is not None]
        position += len(made)
        folder = root / config if config else root
        named = bench.files.get(config or "")
        file = folder / (named if named and "*" not in named else f"{split}-00000-of-00001.parquet")
        write_parquet(file, made, features=bench.features, row_group_size=row_group_size)
    return root


def hub_row_ids(name: str, root: str | Path) -> list[str]:
    """The sample ids of a copy, in order (what a replay file must name)."""
    from omnieval.sources.hub import load_hub_tasks

    (task,) = load_hub_tasks(_bench(name), str(root))
    return [sample.id for sample in task.iter_samples()]
