"""omnieval as a library: the keyword-only functions ``import omnieval`` exposes (see docs/api.md).

Each is the same work as its CLI command (the CLI is a thin layer over these): ``evaluate`` is
``omnieval run``, ``sweep`` is ``omnieval sweep`` (leaderboard.json included), ``score`` is
``omnieval rescore``, ``rejudge``, ``compare`` and ``report`` likewise. The accepted keywords of
``evaluate`` are derived from :class:`~omnieval.runner.RunConfig`, the backend options and the executor
options, so a field added there is an option here with no second list to keep.
"""

from __future__ import annotations

import dataclasses
import functools
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from omnieval.api import evaluate as evaluate_config
from omnieval.api import rejudge as rejudge_run
from omnieval.api import rescore
from omnieval.backends import Backend, BackendOptions
from omnieval.executors import ExecutorOptions
from omnieval.runner import JudgeConfig, RunConfig, RunOutcome
from omnieval.types.files import EvalResults, ResultsFile, load_results

__all__ = [
    "EvalResults",
    "SweepRun",
    "compare",
    "error_rate_failure",
    "evaluate",
    "load_results",
    "option_names",
    "rejudge",
    "report",
    "score",
    "sweep",
    "write_leaderboard",
]

_FIXED = {"tasks", "model", "output", "backend", "judge"}
_EXECUTOR_KEYS = {"executor": "kind"}


@functools.cache
def option_names() -> dict[str, str]:
    """Every keyword :func:`evaluate` accepts besides model/tasks/output, with where it goes."""
    names = {k: "run" for k in RunConfig.model_fields if k not in _FIXED}
    names.update({k: "backend" for k in BackendOptions.model_fields if k not in names})
    names.update({k: "executor" for k in ExecutorOptions.model_fields if k != "kind" and k not in names})
    names.update(dict.fromkeys(_EXECUTOR_KEYS, "executor"))
    names["judge"] = "run"
    return names


def _split_options(
    options: dict[str, Any], *, caller: str = "evaluate", own: str = "model, tasks, output, warm_up"
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``options`` → (RunConfig, BackendOptions, ExecutorOptions) fields; an unknown key is a TypeError
    naming ``caller`` and its own keywords (``own``) besides the run options."""
    known = option_names()
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(
            f"{caller}() got unexpected keyword argument(s) {unknown}; it takes {own} and {sorted(known)}"
        )
    parts: dict[str, dict[str, Any]] = {"run": {}, "backend": {}, "executor": {}}
    for key, value in options.items():
        parts[known[key]][_EXECUTOR_KEYS.get(key, key)] = value
    return parts["run"], parts["backend"], parts["executor"]


def _judge(value: Any) -> JudgeConfig | None:
    """``judge=`` as a spec string (``PROVIDER/NAME``), a dict of JudgeConfig fields or a JudgeConfig."""
    if value is None or isinstance(value, JudgeConfig):
        return value
    if isinstance(value, str):
        return JudgeConfig(model=value)
    return JudgeConfig.model_validate(value)


def _model_spec(model: Any, options: BackendOptions) -> tuple[str, Backend | None]:
    """A ``PROVIDER/NAME`` string, a :class:`Backend`, or a loaded transformers ``(model, processor)``."""
    if isinstance(model, str):
        return model, None
    if isinstance(model, Backend):
        return f"{model.provider}/{model.model}", model
    if isinstance(model, tuple) and len(model) == 2:
        from omnieval.backends.hf.backend import HFBackend

        backend = HFBackend.from_loaded(*model, options=options)
        return f"hf/{backend.model}", backend
    raise TypeError(
        "model= takes 'PROVIDER/NAME', a Backend, or a (transformers model, processor) pair, not "
        f"{type(model).__name__}"
    )


@contextmanager
def _run_dir(output: str | Path | None) -> Iterator[Path]:
    """The run directory: ``output``, or a temporary one removed after the run (an in-memory run)."""
    if output is not None:
        yield Path(output)
        return
    with tempfile.TemporaryDirectory(prefix="omnieval-") as tmp:
        yield Path(tmp) / "run"


def evaluate(
    *,
    model: Any,
    tasks: Sequence[str] | str,
    output: str | Path | None = None,
    warm_up: bool = False,
    **options: Any,
) -> EvalResults:
    """Run (or resume) ``tasks`` on ``model``: the same run as ``omnieval run`` with the same options.

    ``output=None`` runs in a temporary folder and keeps only the returned results (no files left).
    ``options``: any field of RunConfig, BackendOptions or ExecutorOptions (``executor="ray"``),
    ``judge=`` a judge spec; see :func:`option_names`. ``result.failure`` holds the CLI's exit-3 reason.
    ``warm_up=True`` loads what the run's end needs (numpy, the report's template) on a background thread
    while the requests wait, as ``omnieval run`` does; off by default, so a call from a notebook or a
    training loop starts no thread it did not ask for.
    """
    run_fields, backend_fields, executor_fields = _split_options(options)
    if run_fields.get(
        "dry_run"
    ):  # the CLI prints a preview instead of running; here that would call the model
        raise TypeError(
            "evaluate() runs the model; for a dry run use omnieval.runner.preview.plan_requests(config)"
        )
    backend_options = BackendOptions(**backend_fields)
    spec, backend = _model_spec(model, backend_options)
    if isinstance(tasks, str):
        tasks = [tasks]
    judge = _judge(run_fields.pop("judge", None))
    with _run_dir(output) as out:
        config = RunConfig(
            tasks=(",".join(tasks),),  # as the CLI records it, so either can resume the other's run
            model=spec,
            output=out,
            backend=backend_options,
            judge=judge,
            **run_fields,
        )
        if backend is None:
            from omnieval.backends import check_backend_options

            check_backend_options(config.model, config.backend)
            how = ExecutorOptions(**executor_fields)
            outcome, results = evaluate_config(config, executor=how, warm_up=warm_up)
        else:
            outcome, results = _evaluate_backend(config, backend, executor_fields, warm_up=warm_up)
        return _typed(
            results,
            outcome,
            run_dir=out if output is not None else None,
            max_error_rate=config.max_error_rate,
        )


def _evaluate_backend(
    config: RunConfig, backend: Backend, executor: dict[str, Any], *, warm_up: bool
) -> tuple[RunOutcome, ResultsFile]:
    """A backend object runs here (it cannot be shipped to a cluster's workers)."""
    from omnieval.api import finalize, taken_samples, warming_up
    from omnieval.runner import run

    if executor.get("kind", "local") != "local":
        raise TypeError("a model object runs with the local executor only; pass a PROVIDER/NAME spec for Ray")
    with warming_up(warm_up, report_dir=config.output, samples_of=taken_samples(config)) as warm:
        outcome = run(config, backend=backend, on_first_record=warm)
    extra = {"blind": config.blind, "retries": outcome.retries, "backend": outcome.backend}
    prompts = warm.prompts()
    return outcome, finalize(config.output, outcome.tasks, model=config.model, extra=extra, prompts=prompts)


def _typed(
    results: ResultsFile, outcome: RunOutcome | None, *, run_dir: Path | None, max_error_rate: float | None
) -> EvalResults:
    failure = error_rate_failure(results, max_error_rate=max_error_rate)
    unknown = tuple(outcome.unknown_sample_ids) if outcome is not None else ()
    return EvalResults(results=results, run_dir=run_dir, failure=failure, unknown_sample_ids=unknown)


def error_rate_failure(results: ResultsFile, *, max_error_rate: float | None) -> str | None:
    """Why a run counts as failed (``omnieval run`` exits 3), or ``None``.

    Above ``max_error_rate`` of samples in error; with no rate given, only when every answered sample
    ended in error (an unreachable server, a wrong model name).
    """
    states = results.states
    total = sum(states.values())
    errors = states.get("error", 0)
    if max_error_rate is not None and total and errors / total > max_error_rate:
        return f"error rate {errors / total:.3f} exceeds --max-error-rate {max_error_rate}"
    answered = total - states.get("skipped", 0)
    if max_error_rate is None and answered and errors == answered:
        return f"every one of the {answered} samples ended in error (see the warnings above)"
    return None


def score(run_dir: str | Path) -> EvalResults:
    """Re-score a run's stored responses with the current parsers and metrics (``omnieval rescore``)."""
    return _typed(rescore(Path(run_dir)), None, run_dir=Path(run_dir), max_error_rate=None)


def rejudge(run_dir: str | Path, *, judge: Any) -> EvalResults:
    """Re-judge stored responses with ``judge`` (a spec or JudgeConfig); only judge-derived values change."""
    config = _judge(judge)
    if config is None:
        raise TypeError("rejudge() needs judge=")
    return _typed(rejudge_run(Path(run_dir), config), None, run_dir=Path(run_dir), max_error_rate=None)


def compare(*runs: str | Path, output: str | Path | None = None, seed: int = 0) -> dict[str, Any]:
    """Paired comparison of two or more runs (``omnieval compare``); with ``output`` also its files."""
    from omnieval.reports.compare import compare_runs

    if len(runs) < 2:
        raise TypeError("compare() needs two or more run directories")
    doc = compare_runs([Path(r) for r in runs], seed=seed)
    if output is not None:
        from omnieval.reports.compare_page import write_comparison

        write_comparison(doc, Path(output))
    return doc


def report(run_dir: str | Path, *, prompts: bool = True) -> Path:
    """Render ``report.html`` again from the stored records; returns its path (``omnieval report``)."""
    from omnieval.reports import write_report
    from omnieval.runner import resolve_tasks
    from omnieval.types.files import ManifestFile, load_file

    tasks = None
    if prompts:
        try:
            config = RunConfig.model_validate(load_file(Path(run_dir) / "manifest.json", ManifestFile).config)
            tasks = resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
        except Exception:  # the report renders without prompts (as the CLI does, which says why)
            tasks = None
    return Path(write_report(Path(run_dir), tasks=tasks))


@dataclasses.dataclass(frozen=True)
class SweepRun:
    """One model of a sweep as it ended."""

    name: str
    config: RunConfig
    status: str
    results: ResultsFile | None
    error: str | None


def sweep(
    *,
    models: Sequence[str],
    tasks: Sequence[str],
    output: str | Path,
    scheme: str | None = None,
    scheme_options: dict[str, Any] | None = None,
    models_at_once: int | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Every model on every task, one run directory each under ``output``, and ``leaderboard.json``
    (``omnieval sweep``); returns the leaderboard document. ``options`` as for :func:`evaluate`."""
    from omnieval.executors.sweep import load_sweep, run_dir_name

    run_fields, backend_fields, executor_fields = _split_options(
        options, caller="sweep", own="models, tasks, output, scheme, scheme_options, models_at_once"
    )
    judge = _judge(run_fields.pop("judge", None))
    spec = load_sweep(None, models=",".join(models), tasks=",".join(tasks), models_at_once=models_at_once)
    configs = []
    for m in spec.models:
        backend = BackendOptions(
            **{
                **backend_fields,
                "base_url": m.base_url or backend_fields.get("base_url"),
                "extra": {**backend_fields.get("extra", {}), **m.backend_opt},
            }
        )
        name = run_dir_name(m)
        configs.append(
            (
                name,
                RunConfig(
                    tasks=spec.tasks,
                    model=m.model,
                    output=Path(output) / name,
                    backend=backend,
                    judge=judge,
                    **run_fields,
                ),
            )
        )
    runs = run_sweep(
        configs,
        ExecutorOptions(**executor_fields),
        models_at_once=spec.models_at_once,
        quiet=bool(run_fields.get("quiet")),
    )
    return write_leaderboard(Path(output), runs, scheme=scheme, options=scheme_options or {})


def _run_model(config: RunConfig, how: ExecutorOptions, progress: Any, *, judges: Any = None) -> ResultsFile:
    _, results = evaluate_config(config, executor=how, progress=progress, judges=judges)
    return results.model_copy(update={"run_dir": str(config.output)})


def run_sweep(
    configs: list[tuple[str, RunConfig]], how: ExecutorOptions, *, models_at_once: int | None, quiet: bool
) -> list[Any]:
    """On Ray several models at once (each with its share of the cluster); locally one after another."""
    from omnieval.executors.sweep_runner import plan_runs, run_models, shared_gates, shared_judges

    started = False
    resources = None
    if how.kind == "ray":
        import ray

        from omnieval.executors.ray_executor import connect

        started = connect(how)
        resources = ray.cluster_resources()
    try:
        with shared_judges(configs, how, resources=resources) as (judges, free):
            runs, at_once = plan_runs(configs, how, models_at_once=models_at_once, resources=free)
            with shared_gates(runs):
                run_model = functools.partial(_run_model, judges=judges)
                return run_models(runs, models_at_once=at_once, run_model=run_model, quiet=quiet)
    finally:
        if started:
            import ray

            ray.shutdown()


def _typed_run(run: Any) -> ResultsFile | None:
    """A sweep run's results (``None`` for a model that failed)."""
    return run.results if isinstance(run.results, ResultsFile) else None


def write_leaderboard(
    output: Path, runs: list[Any], *, scheme: str | None, options: dict[str, Any]
) -> dict[str, Any]:
    """leaderboard.json: a row per model (failed ones too, with their status), their run directories,
    the failures' errors and any scheme's board over the finished models."""
    from omnieval.executors.sweep import board
    from omnieval.store import write_json
    from omnieval.types.files import LEADERBOARD_SCHEMA_VERSION

    finished = [r.results for r in runs if r.results is not None]
    table = board([(r.name, _typed_run(r), r.config.model, r.status) for r in runs])
    extra = {}
    if scheme is not None and finished:
        from omnieval.aggregate import schemes

        extra = {scheme: schemes.get(scheme)(finished, **options)}
    document = {
        "schema_version": LEADERBOARD_SCHEMA_VERSION,
        **table,
        "runs": {r.name: str(r.config.output) for r in runs},
        "failed": {r.name: r.error for r in runs if r.status != "finished"},
        "schemes": extra,
    }
    write_json(output / "leaderboard.json", document)
    return document
