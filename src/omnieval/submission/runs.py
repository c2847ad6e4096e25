"""Generic helpers for submission packers: read a run's records, zip files.

Kept format-neutral so every leaderboard format (MERA, ...) packs runs the same way.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from omnieval.errors import StoreError, SubmissionError
from omnieval.store.jsonl import json_objects
from omnieval.types import SampleResult
from omnieval.types.files import record_model

__all__ = ["LOG_FILES", "latest_by_record", "latest_records", "read_records", "zip_bytes"]

LOG_FILES = ("samples.jsonl", "results.json", "manifest.json")
"""The run files that form its public logs."""


def read_records(run_dir: Path) -> Iterator[SampleResult]:
    """Stream ``RUN_DIR/samples.jsonl`` through the record model (``omnieval schema record``); a bad line
    is an error naming the file, the line, the record's sample and the field."""
    path = run_dir / "samples.jsonl"
    if not path.is_file():
        raise SubmissionError(f"{path} not found: is {run_dir} a run directory?")
    for lineno, record in json_objects(
        path, error=lambda n, reason: SubmissionError(f"{path}:{n}: {reason}")
    ):
        try:
            yield record_model(record, source=f"{path}:{lineno}")
        except StoreError as exc:
            raise SubmissionError(str(exc)) from None


def latest_by_record(run_dir: Path) -> dict[str, dict[tuple[str, int | None], SampleResult]]:
    """``task -> (sample_id, repeat) -> record``, every repeat its own record; a later line for the same
    record (a resumed run) wins."""
    out: dict[str, dict[tuple[str, int | None], SampleResult]] = {}
    for record in read_records(run_dir):
        out.setdefault(record.task, {})[(record.sample_id, record.repeat)] = record
    return out


def latest_records(run_dir: Path, *, repeat: int | None = None) -> dict[str, dict[str, SampleResult]]:
    """``task -> sample_id -> record``: one answer per sample, as a leaderboard takes it; a later line for
    the same sample (a resumed run) wins.

    A run with repeated sampling holds K answers per sample: packing one of them silently would hide that
    the answers were sampled and which one was sent, so such a run needs ``repeat`` (the same repeat index
    for every sample, never a per-sample pick). ``repeat=0`` of a run without repeats is its one answer
    (repeat 0 is the same request).
    """
    out: dict[str, dict[str, SampleResult]] = {}
    repeats: set[int] = set()
    for task, records in latest_by_record(run_dir).items():
        for (sample_id, index), record in records.items():
            if index is not None:
                repeats.add(index)
            if repeat is None or (index or 0) == repeat:
                out.setdefault(task, {})[sample_id] = record
    if repeats and repeat is None:
        raise SubmissionError(
            f"{run_dir} was run with repeats ({len(repeats)} answers per sample) and a submission takes one "
            "answer per sample: choose the repeat to pack with --repeat N (--repeat 0 is the answer a run "
            "without repeats gives)"
        )
    if repeat is not None and repeat not in (repeats or {0}):
        raise SubmissionError(
            f"{run_dir} has no repeat {repeat}: its repeats are "
            f"{', '.join(map(str, sorted(repeats))) if repeats else 'none (only --repeat 0 applies)'}"
        )
    return out


def zip_bytes(files: Iterable[tuple[str, bytes]]) -> bytes:
    """An in-memory deflated zip of ``(name, content)`` pairs."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, content in files:
            zf.writestr(name, content)
    return buf.getvalue()
