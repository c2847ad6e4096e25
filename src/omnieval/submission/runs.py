"""Generic helpers for submission packers: read a run's records, zip files.

Kept format-neutral so every leaderboard format (MERA, ...) packs runs the same way.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from omnieval.errors import SubmissionError
from omnieval.store.jsonl import json_objects

__all__ = ["LOG_FILES", "latest_records", "read_records", "zip_bytes"]

LOG_FILES = ("samples.jsonl", "results.json", "manifest.json")
"""The run files that form its public logs."""


def read_records(run_dir: Path) -> Iterator[dict[str, Any]]:
    """Stream ``RUN_DIR/samples.jsonl``; a bad line is an error naming the file and line."""
    path = run_dir / "samples.jsonl"
    if not path.is_file():
        raise SubmissionError(f"{path} not found: is {run_dir} a run directory?")
    for lineno, record in json_objects(
        path, error=lambda n, reason: SubmissionError(f"{path}:{n}: {reason}")
    ):
        if "task" not in record or "sample_id" not in record:
            raise SubmissionError(f"{path}:{lineno}: a record needs 'task' and 'sample_id'")
        yield record


def latest_records(run_dir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """``task -> sample_id -> record``; a later line for the same sample (a resumed run) wins."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for record in read_records(run_dir):
        out.setdefault(str(record["task"]), {})[str(record["sample_id"])] = record
    return out


def zip_bytes(files: Iterable[tuple[str, bytes]]) -> bytes:
    """An in-memory deflated zip of ``(name, content)`` pairs."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, content in files:
            zf.writestr(name, content)
    return buf.getvalue()
