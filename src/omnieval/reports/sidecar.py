"""The sample viewer's sidecar: ``report_samples/`` next to the page, read lazily by the browser.

``index.js`` holds one compact row per sample (task, state, variant, score) so filters and paging work
on a 100,000-sample run without loading sample texts; ``cNNNNN.js`` files hold ``CHUNK`` records each,
copied verbatim from ``samples.jsonl`` (so every field a record has, judge fields included, reaches the
viewer without a re-serialisation pass), plus the prompt and media rebuilt from the task data, fetched
only when a page (or a text search) needs them. They are scripts rather
than JSON so a page opened from disk (``file://``) can load them: browsers refuse ``fetch`` there.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omnieval.reports.embed import script_json

__all__ = ["CHUNK", "SIDECAR", "write_sidecar"]

SIDECAR = "report_samples"
CHUNK = 250


def write_sidecar(
    report_dir: Path,
    records: list[dict[str, Any]],
    raw: list[bytes],
    *,
    states: list[str],
    extra: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """Write index and chunks; return what the page needs to read them."""
    folder = report_dir / SIDECAR
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    task_of: dict[str, int] = {}
    variant_of: dict[str, int] = {}
    state_index = {s: i for i, s in enumerate(states)}
    index: dict[str, list[int]] = {"t": [], "s": [], "v": [], "c": []}
    for record in records:
        variant = record.get("variant")
        index["t"].append(task_of.setdefault(str(record["task"]), len(task_of)))
        index["s"].append(state_index.get(str(record.get("state")), 0))
        index["v"].append(variant_of.setdefault(str(variant), len(variant_of)) if variant is not None else -1)
        scored = record.get("scored", True)
        index["c"].append(round(float(record.get("score") or 0.0) * 1000) if scored else -1)
    n_chunks = (len(records) + CHUNK - 1) // CHUNK
    for chunk in range(n_chunks):
        part = slice(chunk * CHUNK, (chunk + 1) * CHUNK)
        extras = script_json([extra(r) for r in records[part]]).encode() if extra is not None else b"null"
        body = b",\n".join(raw[part])
        (folder / f"c{chunk:05d}.js").write_bytes(b"OMNI_CHUNK(%d,[\n%s],%s);\n" % (chunk, body, extras))
    meta = {"n": len(records), "chunk": CHUNK, "n_chunks": n_chunks, "dir": SIDECAR, "tasks": list(task_of), "variants": list(variant_of), "states": states}
    (folder / "index.js").write_text(f"OMNI_INDEX({script_json({**meta, **index})});\n", encoding="utf-8")
    return meta
