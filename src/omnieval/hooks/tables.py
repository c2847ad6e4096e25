"""What trackers show: per-task summary metrics, and a sample table (one row per stored record, with the
prompt where this run rendered it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from omnieval.types.files import ResultsFile

__all__ = ["SampleRows", "summary_metrics"]


class SampleRows:
    """Prompts and media seen by ``record`` (this invocation), joined to every line of ``samples.jsonl``
    at the end (so a resumed run's table holds the earlier samples too, without their prompts)."""

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "task",
        "sample_id",
        "prompt",
        "response",
        "target",
        "score",
        "state",
        "repeat",
    )
    """``repeat``: the record's repeat index under ``--repeats`` (a sample has one row per repeat), else
    empty."""

    def __init__(self, *, max_rows: int = 10_000) -> None:
        self.max_rows = max_rows
        self.seen: dict[tuple[str, str], tuple[str | None, tuple[Any, ...]]] = {}

    def add(self, record: dict[str, Any], *, prompt: str | None, media: tuple[Any, ...]) -> None:
        if len(self.seen) < self.max_rows:
            self.seen[(record["task"], str(record["sample_id"]))] = (prompt, media)

    def rows(self, run_dir: Path) -> list[tuple[list[Any], tuple[Any, ...]]]:
        """``(cells in COLUMNS order, media refs)`` for at most ``max_rows`` records."""
        from omnieval.store import typed_records

        out: list[tuple[list[Any], tuple[Any, ...]]] = []
        for record in typed_records(run_dir / "samples.jsonl"):
            if len(out) >= self.max_rows:
                break
            prompt, media = self.seen.get((record.task, record.sample_id), (None, ()))
            targets = list(record.targets)
            target = targets[0] if len(targets) == 1 else targets
            cells = [
                record.task,
                record.sample_id,
                prompt,
                record.response,
                target if isinstance(target, str) else json.dumps(target, ensure_ascii=False),
                record.score,
                record.state,
                record.repeat,
            ]
            out.append((cells, media))
        return out


def summary_metrics(results: ResultsFile) -> dict[str, Any]:
    """``TASK/score``, ``TASK/ci95_low``/``_high``, ``TASK/n``, ``TASK/states/STATE``,
    ``TASK/metrics/KEY``. A task with no scored sample (hidden answers: its ``score`` is a
    placeholder 0.0) logs its counts only, never a score a tracker would chart as real."""
    out: dict[str, Any] = {}
    for task, block in results.tasks.items():
        out[f"{task}/n"] = block.n
        out.update({f"{task}/states/{s}": n for s, n in block.states.items()})
        if not block.scored or block.score is None:
            continue
        out[f"{task}/score"] = block.score
        if block.ci95:
            out[f"{task}/ci95_low"], out[f"{task}/ci95_high"] = block.ci95
        out.update({f"{task}/metrics/{k}": v for k, v in block.metrics.items()})
    return out
