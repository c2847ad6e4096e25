"""``omnieval diff RUN_A RUN_B``: why two runs differ — configuration first, then per-sample flips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omnieval.store import typed_records
from omnieval.textkit.ordering import natural_key
from omnieval.types import SampleResult
from omnieval.types.files import ResultsFile, TaskResults, checked_json, load_file

__all__ = ["diff_runs"]

_IGNORED = {"started", "finished", "status", "output", "cache_path"}


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in _IGNORED:
                continue
            out.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def _index(run: Path) -> dict[tuple[str, str, int], SampleResult]:
    """Records by ``(task, sample_id, repeat)``, the last line winning (a resumed run). A record without
    a repeat index pairs with repeat 0: that is the same request (same generation seed)."""
    return {(r.task, r.sample_id, r.repeat or 0): r for r in typed_records(run / "samples.jsonl")}


def _flip(key: tuple[str, str, int], a: SampleResult, b: SampleResult) -> dict[str, Any]:
    flip: dict[str, Any] = {"task": key[0], "sample_id": key[1]}
    if a.repeat is not None or b.repeat is not None:
        flip["repeat"] = key[2]
    for side, record in (("a", a), ("b", b)):
        flip[side] = {"state": record.state, "score": record.score, "response": record.response}
    return flip


def diff_runs(run_a: Path, run_b: Path, *, max_flips: int = 50) -> dict[str, Any]:
    """Configuration/version differences, score deltas per task, and records whose score flipped
    (records pair by task, sample and repeat index)."""
    man_a, man_b = (_flatten(checked_json(run / "manifest.json", "manifest")) for run in (run_a, run_b))
    config = {
        key: {"a": man_a.get(key), "b": man_b.get(key)}
        for key in sorted(set(man_a) | set(man_b))
        if man_a.get(key) != man_b.get(key) and not key.startswith("environment.platform")
    }
    recs_a, recs_b = _index(run_a), _index(run_b)
    flips = []
    for key in sorted(set(recs_a) & set(recs_b), key=lambda k: (k[0], natural_key(k[1]), k[2])):
        a, b = recs_a[key], recs_b[key]
        if a.score != b.score or a.state != b.state:
            flips.append(_flip(key, a, b))
    return {
        "config": config,
        "only_in_a": len(set(recs_a) - set(recs_b)),
        "only_in_b": len(set(recs_b) - set(recs_a)),
        "n_flips": len(flips),
        "flips": flips[:max_flips],
        "tasks": _task_deltas(run_a, run_b),
    }


def _task_deltas(run_a: Path, run_b: Path) -> dict[str, Any]:
    res_a, res_b = _tasks(run_a), _tasks(run_b)
    return {
        name: {"a": _score(res_a.get(name)), "b": _score(res_b.get(name))}
        for name in sorted(set(res_a) | set(res_b))
    }


def _tasks(run: Path) -> dict[str, TaskResults]:
    """The run's task blocks, validated (a mistyped results.json fails here, named); none before it ends."""
    path = run / "results.json"
    return load_file(path, ResultsFile).tasks if path.exists() else {}


def _score(block: TaskResults | None) -> float | None:
    return block.score if block is not None else None
