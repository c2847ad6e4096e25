"""Repeated judging for the flip-rate audit: re-judge a run's stored responses several times with the
judge cache off (a cached verdict would repeat itself), without touching the run directory."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from omnieval.errors import ConfigError, StoreError
from omnieval.runner import JudgeConfig, RunConfig, resolve_tasks
from omnieval.runner.rejudge import rejudge_records
from omnieval.store import typed_records
from omnieval.types.files import ManifestFile, load_file

__all__ = ["repeat_judging"]


def repeat_judging(run_dir: Path, judge: JudgeConfig | None, *, repeats: int) -> list[list[dict[str, Any]]]:
    """``repeats`` fresh judgings of the run's records (``judge`` defaults to the run's own judge)."""
    if repeats < 1:
        raise ConfigError(
            f"repeated judging needs at least 1 repeat (compared with the run's own verdicts), got {repeats}"
        )
    manifest_path = run_dir / "manifest.json"
    if not manifest_path.exists():
        raise StoreError(f"{run_dir} has no manifest.json: not an omnieval run directory")
    config = RunConfig.model_validate(load_file(manifest_path, ManifestFile).config)
    judge = judge or config.judge
    if judge is None:
        raise ConfigError(f"{run_dir} was not judged: name the judge to repeat with --judge SPEC")
    tasks = resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
    records = list(typed_records(run_dir / "samples.jsonl"))
    uncached = config.model_copy(update={"use_cache": False})
    return [
        [
            r.model_dump(mode="json")
            for r in asyncio.run(rejudge_records(run_dir, uncached, tasks, records, judge))[0]
        ]
        for _ in range(repeats)
    ]
