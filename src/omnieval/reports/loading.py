"""Reading a run directory for reporting: tolerant of a killed run, strict about what it could not read.

A report must still render when ``samples.jsonl`` ends in a line cut by ``kill -9`` (or holds a corrupt
line), so unreadable lines are skipped and *counted*, and the report says how many. ``results.json`` is
used when present (its aggregates follow each task's own rules); otherwise the per-task blocks are
rebuilt from the records (mean score, bootstrap CI) and the report says so.
"""

from __future__ import annotations

import sys
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from omnieval.errors import StoreError
from omnieval.types import STATES
from omnieval.types.files import ManifestFile, ResultsFile, TaskResults, load_file

__all__ = ["STREAM_BYTES", "RecordStream", "RunData", "load_run", "read_records_tolerant", "state_names"]

STREAM_BYTES = 16 * 2**20
"""A ``samples.jsonl`` larger than this is not held by a report: its records (a dict of ~25 fields each,
~4 KB in memory against ~0.7 KB on disk) are read again from the file for each pass (:class:`RecordStream`),
so rendering a 100,000-record run stays in bounded memory. Smaller files are held: several passes over a
list cost nothing."""


@dataclass
class RunData:
    """Everything a report or a comparison reads from one run directory."""

    run_dir: Path
    results: ResultsFile
    manifest: ManifestFile
    records: Sequence[dict[str, Any]]
    """A list, or a :class:`RecordStream` (iterable again and again, sized) for a large run."""
    unreadable_lines: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.run_dir.resolve().name

    @property
    def typed(self) -> ResultsFile:
        """``results`` (kept for readers written when ``results`` was a dict)."""
        return self.results

    @property
    def typed_manifest(self) -> ManifestFile:
        """``manifest`` (kept for readers written when ``manifest`` was a dict)."""
        return self.manifest


_UNREADABLE: dict[str, Any] = {}
"""What :func:`_readable` returns for a line that is not a record (compared by identity)."""


def _readable(line: bytes) -> dict[str, Any] | None:
    """A line's record; ``None`` for a blank line, ``_UNREADABLE`` for one that is not a record."""
    if not line.strip():
        return None
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return _UNREADABLE
    if not isinstance(record, dict) or "task" not in record or "sample_id" not in record:
        return _UNREADABLE
    return record


def _key(record: dict[str, Any]) -> tuple[str, str, Any]:
    return sys.intern(str(record["task"])), str(record["sample_id"]), record.get("repeat")


def read_records_tolerant(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Records (the last one of a task/sample/repeat wins, as after a resume) and the count of unreadable
    lines."""
    latest: dict[tuple[str, str, Any], dict[str, Any]] = {}
    bad = 0
    with path.open("rb") as fh:
        for line in fh:
            record = _readable(line)
            if record is _UNREADABLE:
                bad += 1
            elif record:
                latest[_key(record)] = record
    return list(latest.values()), bad


class RecordStream(Sequence[dict[str, Any]]):
    """The records :func:`read_records_tolerant` returns, in the same order, read again from the file at
    each iteration instead of held: only each winning line's byte offset is kept (8 bytes a record).

    Built by one pass over the file (which also counts the unreadable lines); the file must not change
    while the stream is in use (a report renders a finished run). Indexing is not supported: consumers
    iterate."""

    def __init__(self, path: Path) -> None:
        self.path = path
        first: dict[tuple[str, str, Any], int] = {}  # key → its slot in ``offsets`` (first-seen order)
        self.offsets = array("q")
        self.unreadable = 0
        with path.open("rb") as fh:
            offset = 0
            for line in fh:
                record = _readable(line)
                if record is _UNREADABLE:
                    self.unreadable += 1
                elif record:
                    slot = first.setdefault(_key(record), len(self.offsets))
                    if slot == len(self.offsets):
                        self.offsets.append(offset)
                    else:  # a later record of the same sample (a resume): it wins, in the first one's place
                        self.offsets[slot] = offset
                offset += len(line)
        self.in_order = all(a < b for a, b in zip(self.offsets, self.offsets[1:], strict=False))

    def __len__(self) -> int:
        return len(self.offsets)

    def __getitem__(self, index: Any) -> Any:
        raise TypeError("a RecordStream is read by iteration only")

    def __iter__(self) -> Iterator[dict[str, Any]]:
        with self.path.open("rb") as fh:
            if self.in_order:  # no sample recorded twice (the usual case): one sequential read
                wanted = iter(self.offsets)
                target = next(wanted, None)
                offset = 0
                for line in fh:
                    if offset == target:
                        yield orjson.loads(line)
                        target = next(wanted, None)
                    offset += len(line)
                return
            for offset in self.offsets:
                fh.seek(offset)
                yield orjson.loads(fh.readline())


def state_names(*counts: dict[str, Any]) -> list[str]:
    """The known states in their usual order, then any other state a record carries (e.g.
    ``judge_failed``)."""
    seen = [s for c in counts for s in c]
    return [*STATES, *sorted({s for s in seen if s not in STATES})]


def _results_from_records(records: Sequence[dict[str, Any]], *, model: str) -> ResultsFile:
    from omnieval.aggregate import bootstrap_ci

    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_task[str(record["task"])].append(record)
    tasks = {}
    for name, recs in by_task.items():
        scores = [float(r.get("score") or 0.0) for r in recs if r.get("scored", True)]
        states = Counter(str(r.get("state")) for r in recs)
        tasks[name] = TaskResults(
            score=sum(scores) / len(scores) if scores else None,
            n=len(recs),
            n_scored=len(scores),
            scored=bool(scores),
            states=dict(states),
            metrics={},
            ci95=bootstrap_ci(scores),
            metadata={},
        )
    return ResultsFile(model=model, tasks=tasks)


def load_run(run_dir: Path, *, stream_above: int | None = None) -> RunData:
    """Read records, results and manifest of one run directory. With ``stream_above`` (bytes), a
    ``samples.jsonl`` larger than that is not held: ``records`` is a :class:`RecordStream`."""
    run_dir = Path(run_dir)
    samples = run_dir / "samples.jsonl"
    if not run_dir.is_dir():
        raise StoreError(f"{run_dir} is not a directory")
    if not samples.exists():
        raise StoreError(f"{run_dir} has no samples.jsonl: not an omnieval run directory")
    records: Sequence[dict[str, Any]]
    if stream_above is not None and samples.stat().st_size > stream_above:
        records = RecordStream(samples)
        bad = records.unreadable
    else:
        records, bad = read_records_tolerant(samples)
    manifest = (
        load_file(run_dir / "manifest.json", ManifestFile)
        if (run_dir / "manifest.json").exists()
        else ManifestFile()
    )
    notes = []
    if (run_dir / "results.json").exists():
        results = load_file(run_dir / "results.json", ResultsFile)
    else:
        model = str(manifest.config.get("model") or run_dir.name)
        results = _results_from_records(records, model=model)
        notes.append("no results.json (unfinished run?): task scores are plain means of the readable records")
    if bad:
        notes.append(
            f"{bad} line(s) of samples.jsonl could not be read (e.g. cut by a killed run) and are left out"
        )
    return RunData(run_dir, results, manifest, records, bad, notes)
