"""Score and judge a run again from the responses its directory stored: no model is called."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omnieval.errors import StoreError
from omnieval.runner import JudgeConfig, RunConfig, Scorer, resolve_tasks
from omnieval.runs.evaluation import finalize
from omnieval.sources import Task
from omnieval.store import rewrite_records, typed_records, write_json
from omnieval.types import Response, Sample, SampleResult, Usage
from omnieval.types.files import ResultsFile

__all__ = ["rejudge_run", "rescore_run", "tasks_of_run"]


def _response_of(record: SampleResult) -> Response:
    return Response(
        text=record.raw_response or record.response or "",
        finish_reason=record.finish_reason or "stop",
        usage=record.usage or Usage(),
        latency_s=record.latency_s,
        cached=record.cached,
        media=record.media_policy,
        extra={"episode": record.episode} if record.episode is not None else {},
    )


def _rescored(record: SampleResult, sample: Sample | None, scorer: Scorer) -> SampleResult:
    if sample is None or record.state in ("error", "skipped"):
        return record
    keep = {
        "variant": record.variant,
        "fingerprint": record.fingerprint,
        "repeat": record.repeat,
        "audio": record.audio,  # a spoken answer: its transcript is the response scored again
    }
    result = scorer.score(sample, _response_of(record), **keep)  # a repeat stays its own record
    if record.judge and scorer.needs_judge(result):  # the stored verdict stands: re-scoring calls no judge
        return scorer.with_judgement(sample, result, record.judge)
    return result


def _run_facts(run_dir: Path) -> dict[str, Any]:
    """The run's old results.json, for what it says beyond the aggregates (``backend``, ``retries``,
    ``blind``): re-scoring and re-judging call no model, so these stay as the run recorded them
    (``compute_results`` recomputes the aggregates, which always win over the old values)."""
    from omnieval.types.files import checked_json

    path = run_dir / "results.json"
    if not path.exists():
        return {}
    return checked_json(path, "results")


def _stored_run(run_dir: Path) -> tuple[dict[str, Any], RunConfig, list[Task], list[SampleResult]]:
    """Manifest, configuration, tasks and records of a run directory (for re-scoring and re-judging)."""
    from omnieval.types.files import checked_json

    manifest_path = run_dir / "manifest.json"
    if not manifest_path.exists():
        raise StoreError(f"{run_dir} has no manifest.json: not an omnieval run directory")
    manifest = checked_json(manifest_path, "manifest")
    config = RunConfig.model_validate(manifest["config"])
    tasks = resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
    return manifest, config, tasks, list(typed_records(run_dir / "samples.jsonl"))


def rescore_run(run_dir: Path) -> ResultsFile:
    """Re-parse and re-score a finished run from its stored responses; its results.json, rewritten."""
    _, config, tasks, records = _stored_run(run_dir)
    out: list[SampleResult] = []
    for task in tasks:
        mine = [r for r in records if r.task == task.name]
        wanted = {r.sample_id for r in mine}
        samples = {s.id: s for s in task.iter_samples() if s.id in wanted}
        scorer = Scorer.for_task(task.spec, judged=any(r.judge for r in mine))
        out.extend(_rescored(r, samples.get(r.sample_id), scorer) for r in mine)
    names = {t.name for t in tasks}
    out.extend(r for r in records if r.task not in names)
    rewrite_records(run_dir / "samples.jsonl", out)
    extra = _run_facts(run_dir) | {"blind": config.blind, "rescored": True}
    return finalize(run_dir, tasks, model=config.model, extra=extra)


def rejudge_run(run_dir: Path, judge: JudgeConfig) -> ResultsFile:
    """Re-judge a run's stored responses with ``judge``; only judge-derived values change; its
    results.json, rewritten."""
    import asyncio

    from omnieval.runner.rejudge import rejudge_records

    manifest, config, tasks, records = _stored_run(run_dir)
    if not any(t.spec.judge is not None for t in tasks):
        raise StoreError(f"{run_dir}: none of the run's tasks declares a judge; there is nothing to re-judge")
    out, judges = asyncio.run(rejudge_records(run_dir, config, tasks, records, judge))
    rewrite_records(run_dir / "samples.jsonl", out)
    config = config.model_copy(update={"judge": judge})
    manifest["config"] = config.model_dump(
        mode="json", exclude={"backend": {"api_key"}, "judge": {"backend": {"api_key"}}}
    )
    manifest["judges"] = judges
    manifest["rejudged"] = True
    write_json(run_dir / "manifest.json", manifest)
    extra = _run_facts(run_dir) | {"blind": config.blind, "rejudged": True, "judges": judges}
    return finalize(run_dir, tasks, model=config.model, extra=extra)


def tasks_of_run(run_dir: Path) -> tuple[list[Task] | None, str | None]:
    """The run's tasks resolved from its manifest (a report's viewer shows their prompts and media), or
    ``None`` and why they cannot be resolved any more."""
    from omnieval.types.files import ManifestFile, load_file

    try:
        config = RunConfig.model_validate(load_file(run_dir / "manifest.json", ManifestFile).config)
        return resolve_tasks(config.tasks, strict_metrics=config.strict_metrics), None
    except Exception as exc:  # the report renders without prompts and says why
        return None, f"{type(exc).__name__}: {exc}"
