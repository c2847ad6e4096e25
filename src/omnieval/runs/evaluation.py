"""Run (or resume) a :class:`~omnieval.runner.RunConfig` and aggregate its run directory."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omnieval.errors import CostLimitReached, StoreError
from omnieval.executors import ExecutorOptions, execute
from omnieval.hooks import NO_HOOKS, HookDispatcher, HookInfo, RunHook, open_hooks
from omnieval.reports.tail import warming_up
from omnieval.runner import RunConfig, RunOutcome, resolve_tasks
from omnieval.runner.progress import Progress
from omnieval.runner.resume import with_folder_tasks
from omnieval.sources import Task
from omnieval.store import iter_records, write_json
from omnieval.types import Sample

if TYPE_CHECKING:
    from omnieval.backends import Backend
    from omnieval.reports.views import PromptSource
    from omnieval.types.results import ResultsFile

__all__ = ["evaluate_backend", "evaluate_config", "finalize", "outcome_facts", "taken_samples"]


def finalize(
    output: Path,
    tasks: list[Task],
    *,
    model: str,
    extra: dict[str, Any] | None = None,
    prompts: PromptSource | None = None,
) -> ResultsFile:
    """Settle and aggregate ``samples.jsonl`` into ``results.json`` and ``report.html`` (``prompts``: the
    sample viewer's, rendered while the run waited on the model)."""
    from omnieval.aggregate import compute_results, settle_file
    from omnieval.reports.html import write_report

    settle_file(output / "samples.jsonl", tasks)  # task-level parse steps (MMMU's guesses) come first
    judged = _judged_tasks(output)
    results = compute_results(
        tasks, iter_records(output / "samples.jsonl"), model=model, extra=extra, judged=judged
    )
    write_json(output / "results.json", results.document())
    write_report(output, results, tasks=tasks, prompts=prompts)
    return results


def _judged_tasks(output: Path) -> list[str]:
    """Tasks the run (or its last re-judge) had a judge for, from the manifest (none without one)."""
    from omnieval.types.files import ManifestFile, load_file

    path = output / "manifest.json"
    if not path.exists():
        return []
    manifest: ManifestFile = load_file(path, ManifestFile)
    return list(manifest.judges or {})


def evaluate_config(
    config: RunConfig,
    *,
    executor: ExecutorOptions | None = None,
    progress: Progress | None = None,
    judges: Any = None,
    hooks: Sequence[RunHook] = (),
    warm_up: bool = False,
) -> tuple[RunOutcome, ResultsFile]:
    """Run (or resume) and aggregate; ``executor`` picks where samples run (default: here), ``progress``
    is a display shared by several Ray runs (a sweep), ``judges`` a sweep's judge pools on Ray, ``hooks``
    hook objects beside those named in ``config.log_to`` (their failures land in ``results["hooks"]``).
    ``warm_up`` loads the run's tail (:mod:`omnieval.reports.tail`) on a thread while the requests wait:
    the CLI asks for it; a library call starts no thread of its own unless asked."""
    dispatcher = open_hooks(config.log_to, hooks)  # an unknown hook or a missing extra fails before the run
    config = with_folder_tasks(config)  # a second run's other tasks join the folder's, never hide them
    if not dispatcher:
        return _evaluate(config, executor=executor, progress=progress, judges=judges, warm_up=warm_up)
    dispatcher.run_started(HookInfo(config.output, config.model_dump(mode="json", exclude=_SECRETS)))
    try:
        outcome, results = _evaluate(
            config, executor=executor, progress=progress, judges=judges, hooks=dispatcher, warm_up=warm_up
        )
    except BaseException as exc:
        dispatcher.run_failed(config.output, f"{type(exc).__name__}: {exc}")
        dispatcher.close()
        raise
    dispatcher.run_finished(config.output, results)
    report = dispatcher.close()
    from omnieval.types.files import checked_json, results_model

    path = config.output / "results.json"
    results = results_model(results.document() | {"hooks": report}, source=path)
    write_json(path, results.document())
    manifest = checked_json(config.output / "manifest.json", "manifest")
    write_json(config.output / "manifest.json", manifest | {"hooks": report})
    return outcome, results


_SECRETS: Any = {"backend": {"api_key"}, "judge": {"backend": {"api_key"}}}


def _evaluate(
    config: RunConfig,
    *,
    executor: ExecutorOptions | None,
    progress: Progress | None,
    judges: Any,
    hooks: HookDispatcher = NO_HOOKS,
    warm_up: bool = False,
) -> tuple[RunOutcome, ResultsFile]:
    previous = _reusable_results(config)
    with warming_up(warm_up, report_dir=config.output, samples_of=taken_samples(config)) as warm:
        try:
            outcome = execute(
                config,
                executor=executor,
                progress=progress,
                judges=judges,
                hooks=hooks,
                on_first_record=warm,
                on_sample=warm.observe,
            )
        except CostLimitReached:  # the results so far (with their cost), then the stop
            if (config.output / "samples.jsonl").exists():
                tasks = resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
                finalize(
                    config.output,
                    tasks,
                    model=config.model,
                    extra={"stopped": "cost_limit", "cost_limit": config.cost_limit},
                )
            raise
    nothing_new = not any(sum(s.values()) for s in outcome.states.values())
    if previous is not None and nothing_new:
        results, hashes = previous
        if all(hashes.get(t.name) == t.content_hash for t in outcome.tasks):
            return outcome, results  # a finished run re-run: nothing new, nothing to recompute
    return outcome, finalize(
        config.output,
        outcome.tasks,
        model=config.model,
        extra=outcome_facts(config, outcome),
        prompts=warm.prompts(),
    )


def evaluate_backend(
    config: RunConfig, backend: Backend, *, warm_up: bool = False
) -> tuple[RunOutcome, ResultsFile]:
    """Run ``config`` with a backend object (a loaded model) here and aggregate; an object cannot be
    shipped to a cluster's workers, so this is the local executor only."""
    from omnieval.runner import run

    config = with_folder_tasks(config)
    with warming_up(warm_up, report_dir=config.output, samples_of=taken_samples(config)) as warm:
        outcome = run(config, backend=backend, on_first_record=warm, on_sample=warm.observe)
    extra = {"blind": config.blind, "retries": outcome.retries, "backend": outcome.backend}
    prompts = warm.prompts()
    return outcome, finalize(config.output, outcome.tasks, model=config.model, extra=extra, prompts=prompts)


def taken_samples(config: RunConfig) -> Callable[[Task], Iterator[Sample]] | None:
    """The samples a run of ``config`` takes of a task, when it takes fewer than all (``--limit``,
    ``--sample-ids``, ``--shard``): the report's prompts are rendered ahead for these only."""
    if config.limit is None and not config.sample_ids and config.shard is None:
        return None
    from omnieval.runner.run import selected_samples

    return lambda task: (sample for _, sample in selected_samples(task, config))


def outcome_facts(config: RunConfig, outcome: RunOutcome) -> dict[str, Any]:
    """What a finished run adds to its ``results.json`` besides the aggregates."""
    return {
        "blind": config.blind,
        "retries": outcome.retries,
        "backend": outcome.backend,
        "model_kind": outcome.backend.get("kind", "model"),
    }


def _reusable_results(config: RunConfig) -> tuple[ResultsFile, dict[str, str | None]] | None:
    """The existing results.json (and its task hashes) when made by the same configuration."""
    results, manifest = config.output / "results.json", config.output / "manifest.json"
    if not results.exists() or not manifest.exists():
        return None
    from omnieval.types.files import ManifestFile, ResultsFile, load_file

    try:
        old = load_file(manifest, ManifestFile)
    except StoreError:  # unreadable or not a manifest: computed again
        return None
    if old.status != "finished" or old.config != config.model_dump(
        mode="json", exclude={"backend": {"api_key"}}
    ):
        return None
    hashes = {name: block.hash for name, block in old.tasks.items()}
    try:
        return load_file(results, ResultsFile), hashes
    except StoreError:  # unreadable or not a results file: computed again
        return None
