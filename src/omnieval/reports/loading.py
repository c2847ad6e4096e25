"""Reading a run directory for reporting: tolerant of a killed run, strict about what it could not read.

A report must still render when ``samples.jsonl`` ends in a line cut by ``kill -9`` (or holds a corrupt
line), so unreadable lines are skipped and *counted*, and the report says how many. ``results.json`` is
used when present (its aggregates follow each task's own rules); otherwise the per-task blocks are
rebuilt from the records (mean score, bootstrap CI) and the report says so.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import orjson

from omnieval.errors import StoreError
from omnieval.types import STATES
from omnieval.types.files import ManifestFile, ResultsFile, checked_json, results_model

__all__ = ["RunData", "load_run", "read_records_tolerant", "state_names"]


@dataclass
class RunData:
    """Everything a report or a comparison reads from one run directory."""

    run_dir: Path
    results: dict[str, Any]
    manifest: dict[str, Any]
    records: list[dict[str, Any]]
    unreadable_lines: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.run_dir.resolve().name

    @cached_property
    def typed(self) -> ResultsFile:
        """``results`` through its model (validated when loaded: a missing or mistyped key names the
        file)."""
        return results_model(self.results, source=self.run_dir / "results.json")

    @cached_property
    def typed_manifest(self) -> ManifestFile:
        """``manifest`` through its model (``{}`` for a run without one validates to the defaults)."""
        return ManifestFile.model_validate(self.manifest)


def read_records_tolerant(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Records (the last one of a task/sample/repeat wins, as after a resume) and the count of unreadable
    lines."""
    latest: dict[tuple[str, str, Any], dict[str, Any]] = {}
    bad = 0
    with path.open("rb") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                bad += 1
                continue
            if not isinstance(record, dict) or "task" not in record or "sample_id" not in record:
                bad += 1
                continue
            latest[(str(record["task"]), str(record["sample_id"]), record.get("repeat"))] = record
    return list(latest.values()), bad


def state_names(*counts: dict[str, Any]) -> list[str]:
    """The known states in their usual order, then any other state a record carries (e.g.
    ``judge_failed``)."""
    seen = [s for c in counts for s in c]
    return [*STATES, *sorted({s for s in seen if s not in STATES})]


def _results_from_records(records: list[dict[str, Any]]) -> dict[str, Any]:
    from omnieval.aggregate import bootstrap_ci

    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_task[str(record["task"])].append(record)
    tasks = {}
    for name, recs in by_task.items():
        scores = [float(r.get("score") or 0.0) for r in recs if r.get("scored", True)]
        states = Counter(str(r.get("state")) for r in recs)
        tasks[name] = {
            "score": sum(scores) / len(scores) if scores else 0.0,
            "n": len(recs),
            "n_scored": len(scores),
            "scored": bool(scores),
            "states": dict(states),
            "metrics": {},
            "ci95": bootstrap_ci(scores),
            "metadata": {},
        }
    return {"model": None, "tasks": tasks}


def load_run(run_dir: Path) -> RunData:
    """Read records, results and manifest of one run directory."""
    run_dir = Path(run_dir)
    samples = run_dir / "samples.jsonl"
    if not run_dir.is_dir():
        raise StoreError(f"{run_dir} is not a directory")
    if not samples.exists():
        raise StoreError(f"{run_dir} has no samples.jsonl: not an omnieval run directory")
    records, bad = read_records_tolerant(samples)
    manifest = (
        checked_json(run_dir / "manifest.json", "manifest") if (run_dir / "manifest.json").exists() else {}
    )
    notes = []
    if (run_dir / "results.json").exists():
        results = checked_json(run_dir / "results.json", "results")
    else:
        results = _results_from_records(records)
        notes.append("no results.json (unfinished run?): task scores are plain means of the readable records")
    if results.get("model") is None:
        results["model"] = (manifest.get("config") or {}).get("model") or run_dir.name
    if bad:
        notes.append(
            f"{bad} line(s) of samples.jsonl could not be read (e.g. cut by a killed run) and are left out"
        )
    return RunData(run_dir, results, manifest, records, bad, notes)
