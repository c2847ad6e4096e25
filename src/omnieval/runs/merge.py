"""``omnieval merge``: join the folders of independently started shards (``--shard I/N``) into one run.

The merged folder is what one unsharded run would have written: every record once (in the tasks'
order), ``results.json`` and ``report.html`` computed from them, and a manifest with the shared
configuration. Which samples the run needs is read from its tasks, not from the shard labels, so shards
resumed under another ``N`` still merge; a sample none of the folders holds is named by the shard it
belongs to. Nothing is written unless the runs agree: same model and settings, and a sample held twice
must hold the same answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omnieval.errors import ConfigError
from omnieval.runner import RunConfig, resolve_tasks
from omnieval.runner.config import Shard
from omnieval.runner.run import task_repeats, unsharded_samples
from omnieval.runner.sharding import shares
from omnieval.runs.evaluation import finalize
from omnieval.runs.settings import different_settings
from omnieval.sources import Task
from omnieval.store import RecordId, RecordKey, rewrite_lines, scan_keys, write_json
from omnieval.types.files import ManifestFile, ResultsFile, checked_json, load_file

__all__ = ["MergeOutcome", "merge_runs"]

_VOLATILE = frozenset({"latency_s", "cached", "cost_usd"})
"""Record fields that differ between two calls with the same answer (timing, a cache hit's price)."""


@dataclass(frozen=True)
class _Run:
    path: Path
    manifest: ManifestFile

    @property
    def shard(self) -> Shard | None:
        value = self.manifest.config.get("shard")
        return Shard.model_validate(value) if value is not None else None


@dataclass
class MergeOutcome:
    """The merged folder's results and what it still lacks (``--allow-partial``)."""

    results: ResultsFile
    missing: dict[str, int] = field(default_factory=dict)
    """Per task, the records no folder held (they stay unfinished; running the shards again adds them)."""

    @property
    def finished(self) -> bool:
        return not self.missing


def merge_runs(runs: Sequence[Path], *, output: Path, allow_partial: bool = False) -> MergeOutcome:
    """Join ``runs`` into ``output``; a :class:`~omnieval.errors.ConfigError` names what stops it (a
    missing shard, a different model or setting, a sample held twice with different content)."""
    loaded = [_load(path) for path in runs]
    _check_output(output, runs)
    first = loaded[0]
    for other in loaded[1:]:
        changed = different_settings(first.manifest, other.manifest)
        if changed:
            raise ConfigError(
                f"merge: {other.path} is not a shard of the same run as {first.path}: different "
                f"{', '.join(changed)}"
            )
    config = RunConfig.model_validate(first.manifest.config | {"output": str(output), "shard": None})
    tasks = resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
    _check_tasks(tasks, first)
    records = _records(loaded)
    expected = {task.name: _expected(task, config) for task in tasks}
    missing = {name: [key for key in keys if key not in records] for name, keys in expected.items()}
    missing = {name: keys for name, keys in missing.items() if keys}
    if missing and not allow_partial:
        raise ConfigError(_missing_message(missing, tasks, config, loaded))
    ordered = [records[key].line for keys in expected.values() for key in keys if key in records]
    output.mkdir(parents=True, exist_ok=True)
    rewrite_lines(output / "samples.jsonl", ordered)
    _write_manifest(output, loaded, config, finished=not missing)
    results = finalize(output, tasks, model=config.model, extra=_facts(loaded))
    return MergeOutcome(results, {name: len(keys) for name, keys in missing.items()})


def _load(path: Path) -> _Run:
    manifest = path / "manifest.json"
    if not manifest.is_file():
        raise ConfigError(f"merge: {path} is not a run folder (it has no manifest.json)")
    return _Run(path, load_file(manifest, ManifestFile))


def _check_output(output: Path, runs: Sequence[Path]) -> None:
    """The merged folder is new, or an earlier merge's (merged again once more shards finished)."""
    if any(output.resolve() == run.resolve() for run in runs):
        raise ConfigError(f"merge: --output {output} is one of the runs merged; name a new folder")
    manifest = output / "manifest.json"
    if manifest.is_file() and not load_file(manifest, ManifestFile).merged_from:
        raise ConfigError(f"merge: {output} holds a run that is not a merge; name a new folder")


def _check_tasks(tasks: list[Task], first: _Run) -> None:
    changed = [
        t.name
        for t in tasks
        if t.name in first.manifest.tasks and first.manifest.tasks[t.name].hash != t.content_hash
    ]
    if changed:
        raise ConfigError(
            f"merge: the definition of task(s) {', '.join(changed)} changed since {first.path} ran; the "
            "shards' records would not be the run these tasks make"
        )


def _records(runs: list[_Run]) -> dict[RecordId, RecordKey]:
    """Every record once; one held twice must agree (an error record gives way to an answer)."""
    kept: dict[RecordId, RecordKey] = {}
    where: dict[RecordId, Path] = {}
    for run in runs:
        for key in scan_keys(run.path / "samples.jsonl"):
            ident = (key.task, key.sample_id, key.repeat)
            held = kept.get(ident)
            if held is None or (held.state == "error" and key.state != "error"):
                kept[ident], where[ident] = key, run.path
            elif key.state != "error":
                _check_same(held, key, ident, where[ident], run.path)
    return kept


def _check_same(a: RecordKey, b: RecordKey, ident: RecordId, path_a: Path, path_b: Path) -> None:
    first, second = _content(json.loads(a.line)), _content(json.loads(b.line))
    if first == second:
        return
    fields = sorted(k for k in first.keys() | second.keys() if first.get(k) != second.get(k))
    task, sample_id, repeat = ident
    which = f"sample {sample_id!r} of task {task!r}" + (f" (repeat {repeat})" if repeat is not None else "")
    raise ConfigError(
        f"merge: {which} is in {path_a} and in {path_b} with different content ({', '.join(fields)}); "
        "the runs are not shards of one run"
    )


def _content(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _content(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_content(v) for v in value]
    return value


def _expected(task: Task, config: RunConfig) -> list[RecordId]:
    """The records a full run of ``task`` holds, in the task's order."""
    n = task_repeats(task, config)
    repeats: tuple[int | None, ...] = (None,) if n is None else tuple(range(n))
    return [(task.name, sample.id, r) for _, sample in unsharded_samples(task, config) for r in repeats]


def _missing_message(
    missing: dict[str, list[RecordId]], tasks: list[Task], config: RunConfig, runs: list[_Run]
) -> str:
    total = sum(len(keys) for keys in missing.values())
    counts = sorted({run.shard.count for run in runs if run.shard is not None})
    if not counts:
        named = [f"{task}: {', '.join(sorted({k[1] for k in keys})[:5])}" for task, keys in missing.items()]
        return (
            f"merge: {total} record(s) are in none of the runs ({'; '.join(named)}); run the rest, or merge "
            "what exists with --allow-partial"
        )
    count = counts[-1]
    present = {run.shard.index for run in runs if run.shard is not None and run.shard.count == count}
    lacking: dict[int, int] = {}
    for task in tasks:
        if task.name not in missing:
            continue
        share = shares(task.name, (s for _, s in unsharded_samples(task, config)), count=count)
        for _, sample_id, _ in missing[task.name]:
            lacking[share[sample_id]] = lacking.get(share[sample_id], 0) + 1
    parts = [
        f"shard {index}/{count} {'is incomplete' if index in present else 'is missing'} ({n} record(s))"
        for index, n in sorted(lacking.items())
    ]
    return (
        f"merge: {total} record(s) are in none of the runs: {'; '.join(parts)}. Run it again "
        f"(`omnieval run ... --shard I/{count}` into its folder) and merge again, or merge what exists "
        "with --allow-partial"
    )


def _write_manifest(output: Path, runs: list[_Run], config: RunConfig, *, finished: bool) -> None:
    document = checked_json(runs[0].path / "manifest.json", "manifest")
    starts = [r.manifest.started for r in runs if r.manifest.started]
    ends = [r.manifest.finished for r in runs if r.manifest.finished]
    write_json(
        output / "manifest.json",
        document
        | {
            "status": "finished" if finished else "running",
            "started": min(starts) if starts else None,
            "finished": max(ends) if finished and ends else None,
            "config": config.model_dump(
                mode="json", exclude={"backend": {"api_key"}, "judge": {"backend": {"api_key"}}}
            ),
            "executor": {},
            "hooks": {},
            "merged_from": [str(r.path) for r in runs],
        },
    )


def _facts(runs: list[_Run]) -> dict[str, Any]:
    """What a run adds to results.json besides the aggregates, from the shards' own results."""
    results = [
        load_file(r.path / "results.json", ResultsFile) for r in runs if (r.path / "results.json").is_file()
    ]
    facts: dict[str, Any] = {"retries": sum(r.retries for r in results)}
    if results:
        facts |= {
            "blind": results[0].blind,
            "backend": results[0].backend,
            "model_kind": results[0].model_kind,
        }
    return facts
