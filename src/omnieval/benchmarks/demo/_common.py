"""Helpers shared by the demo generators."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from omnieval.errors import SourceError

__all__ = ["check_count", "write_jsonl", "write_manifest"]


def check_count(generator: str, n: int, *, low: int = 1, high: int = 200) -> None:
    """Reject sample counts outside what a demo is for, naming the generator and option."""
    if not isinstance(n, int) or isinstance(n, bool) or not low <= n <= high:
        raise SourceError(f"{generator}: n must be an integer in [{low}, {high}], got {n!r}", field="n")


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    """Write rows as UTF-8 JSON lines (Russian text kept readable)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def write_manifest(out_dir: Path, rows: Iterable[dict[str, Any]]) -> Path:
    """``manifest.jsonl`` beside a demo's own JSONL, in the shape every ``omnieval generate`` folder has
    (``id``, ``task``, ``question``, ``answer``, ``answer_type``, media path), so ``--tasks generated:DIR``
    runs any generated folder the same way."""
    return write_jsonl(Path(out_dir) / "manifest.jsonl", rows)
