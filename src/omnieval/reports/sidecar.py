"""The sample viewer's sidecar: ``report_samples/`` next to the page, read lazily by the browser.

``index.js`` holds one compact row per sample (task, state, variant, score) so filters and paging work
on a 100,000-sample run without loading sample texts. ``cNNNNN.js`` files hold ``CHUNK`` records each,
column by column (one list per record field, so field names are stored once per part and a field that
is null in every record of the part is left out), plus the prompt and media rebuilt from the task data,
gzip-compressed and base64-encoded inside a script: the page inflates a part with the browser's own
``DecompressionStream`` only when a page of samples (or a text search) needs it. They are scripts rather
than JSON or binary files so a page opened from disk (``file://``) can load them: browsers refuse
``fetch`` there. Record fields the viewer never shows (``NOT_SHOWN``: raw response, usage, latency,
cache flags, chain bookkeeping) stay in ``samples.jsonl`` only. Image thumbnails and frames are files in
``media/`` (see :mod:`omnieval.reports.views`), written once per media file.
"""

from __future__ import annotations

import base64
import gzip
import itertools
import os
import re
import shutil
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson

from omnieval.reports.embed import script_json

__all__ = ["CHUNK", "NOT_SHOWN", "SIDECAR", "part_records", "read_part", "write_sidecar"]

SIDECAR = "report_samples"
CHUNK = 500
LEVEL = 1
"""gzip level: on varied text, zlib's level 6 saves a further ~25 % but compresses 7x slower (render of a
100,000-sample run with long reasoning would exceed its 10 s budget). ISA-L (``isal``, a core
dependency) writes the same gzip format ~4x faster than zlib at level 1, and a little smaller."""
NOT_SHOWN = frozenset(
    {
        "raw_response",
        "finish_reason",
        "usage",
        "latency_s",
        "cached",
        "fingerprint",
        "chain",
        "chain_index",
        "media_policy",
    }
)
_PART = re.compile(rb'^OMNI_CHUNK\((\d+),"([A-Za-z0-9+/=]*)"\);\s*$')


def _columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """One list per field, in first-seen field order; fields null (or absent) in every row are left out."""
    names = dict.fromkeys(itertools.chain.from_iterable(rows))
    columns = {}
    for name in names:
        if name not in NOT_SHOWN:
            values = [row.get(name) for row in rows]
            if values.count(None) < len(values):
                columns[name] = values
    return columns


def _part_payload(records: list[dict[str, Any]], added: list[dict[str, Any] | None] | None) -> bytes:
    extra = None
    if added is not None and any(a is not None for a in added):
        extra = _columns([a or {} for a in added])
    return orjson.dumps(
        {"n": len(records), "cols": _columns(records), "added": extra},
        option=orjson.OPT_NON_STR_KEYS,
        default=str,
    )


def _gzip(payload: bytes) -> bytes:
    """gzip bytes the browser's ``DecompressionStream("gzip")`` reads: ISA-L when installed, else zlib."""
    try:
        from isal import igzip
    except ImportError:  # pragma: no cover - isal is a core dependency; zlib gives the same format
        return gzip.compress(payload, compresslevel=LEVEL, mtime=0)
    return igzip.compress(payload, compresslevel=LEVEL, mtime=0)


def _write_part(path: Path, number: int, payload: bytes) -> None:
    packed = base64.b64encode(_gzip(payload))
    path.write_bytes(b'OMNI_CHUNK(%d,"%s");\n' % (number, packed))


def read_part(path: Path) -> dict[str, Any]:
    """One part file back as ``{"n", "cols", "added"}`` (what the browser inflates), for tests and tools."""
    match = _PART.match(Path(path).read_bytes())
    if match is None:
        raise ValueError(f'{path} is not a report sample part (OMNI_CHUNK(n, "base64 gzip"))')
    data: dict[str, Any] = orjson.loads(gzip.decompress(base64.b64decode(match.group(2))))
    return data


def part_records(part: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of one part, rebuilt from its columns (absent and all-null fields read as missing)."""
    return [{k: v[i] for k, v in part["cols"].items() if v[i] is not None} for i in range(part["n"])]


class _Index:
    """One compact row per record (task, state, variant, score), filled part by part."""

    def __init__(self, states: list[str]) -> None:
        self.task_of: dict[str, int] = {}
        self.variant_of: dict[str, int] = {}
        self.state_index = {s: i for i, s in enumerate(states)}
        self.columns: dict[str, list[int]] = {"t": [], "s": [], "v": [], "c": []}

    def add(self, record: dict[str, Any]) -> None:
        variant, index = record.get("variant"), self.columns
        index["t"].append(self.task_of.setdefault(str(record["task"]), len(self.task_of)))
        index["s"].append(self.state_index.get(str(record.get("state")), 0))
        index["v"].append(
            self.variant_of.setdefault(str(variant), len(self.variant_of)) if variant is not None else -1
        )
        scored = record.get("scored", True)
        index["c"].append(round(float(record.get("score") or 0.0) * 1000) if scored else -1)


def write_sidecar(
    report_dir: Path,
    records: Iterable[dict[str, Any]],
    *,
    states: list[str],
    extra: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """Write index and parts in one pass over ``records`` (only a part's records are held at a time);
    return what the page needs to read them.

    Parts are compressed on a thread pool (zlib releases the GIL) while the next part's prompts and
    columns are built, with a bounded backlog so memory stays a few parts deep.
    """
    folder = report_dir / SIDECAR
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    index = _Index(states)
    rows_iter = iter(records)
    n_chunks = 0
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: list[Future[None]] = []
        while rows := list(itertools.islice(rows_iter, CHUNK)):
            for row in rows:
                index.add(row)
            added = [extra(r) for r in rows] if extra is not None else None
            payload = _part_payload(rows, added)
            pending.append(pool.submit(_write_part, folder / f"c{n_chunks:05d}.js", n_chunks, payload))
            n_chunks += 1
            while len(pending) > 2 * workers:
                pending.pop(0).result()
        for future in pending:
            future.result()
    meta = {
        "n": len(index.columns["t"]),
        "chunk": CHUNK,
        "n_chunks": n_chunks,
        "dir": SIDECAR,
        "tasks": list(index.task_of),
        "variants": list(index.variant_of),
        "states": states,
    }
    (folder / "index.js").write_text(
        f"OMNI_INDEX({script_json({**meta, **index.columns})});\n", encoding="utf-8"
    )
    return meta
