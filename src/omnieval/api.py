"""The public API: the keyword-only functions ``import omnieval`` exposes (see docs/api/index.md).

Each is the work of one CLI command, which is a thin skin over it: :func:`evaluate` is ``omnieval run``,
:func:`score` ``omnieval score``, :func:`rejudge`, :func:`compare`, :func:`report` and :func:`sweep`
likewise; :func:`load_results` reads a run directory back. The accepted keywords of :func:`evaluate`
are those of ``omnieval run``, generated from the same option models (:mod:`omnieval.options`), so an
option added there is a keyword here and a flag there with no second list to keep. The work itself is
done below this module (:mod:`omnieval.runs`, :mod:`omnieval.reports`); this module turns keywords into
configurations and documents into the typed results (:mod:`omnieval.types.evaluation`).
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from omnieval.backends import Backend, BackendOptions
from omnieval.hooks import RunHook
from omnieval.options.build import (
    backend_options,
    executor_options,
    joined_tasks,
    option_names,
    run_config,
    run_judge,
    run_options,
    sweep_configs,
)
from omnieval.runner import RunOutcome
from omnieval.runs.evaluation import evaluate_backend, evaluate_config
from omnieval.types import SampleResult
from omnieval.types.evaluation import Comparison, EvalResults
from omnieval.types.files import LeaderboardFile, ResultsFile, TaskResults

__all__ = [
    "Comparison",
    "EvalResults",
    "LeaderboardFile",
    "ResultsFile",
    "SampleResult",
    "TaskResults",
    "compare",
    "error_rate_failure",
    "evaluate",
    "load_results",
    "merge",
    "option_names",
    "rejudge",
    "report",
    "score",
    "sweep",
]


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
    hooks: Sequence[RunHook] = (),
    **options: Any,
) -> EvalResults:
    """Run (or resume) ``tasks`` on ``model``: the same run as ``omnieval run`` with the same options.

    ``output=None`` runs in a temporary folder removed afterwards: the results and every sample record
    are returned. ``options``: the options of ``omnieval run`` under the same names
    (``temperature=0.0``, ``max_tokens=5``, ``batch_size=2``, ``executor="ray"``: :func:`option_names`),
    ``judge=`` a spec, a JudgeConfig or a mapping of its fields; a misspelt keyword is a ``TypeError``
    with a did-you-mean. ``quiet=True`` prints nothing but
    warnings and errors. ``result.failure`` holds the CLI's exit-3 reason. ``warm_up=True`` loads what the
    run's end needs (numpy, the report's template) on a background thread while the requests wait, as
    ``omnieval run`` does; off by default, so a call from a notebook or a training loop starts no thread
    it did not ask for. ``hooks``: run-hook objects (:class:`~omnieval.hooks.RunHook`) beside those named
    in ``log_to``.
    """
    built = run_options(options, caller="evaluate", own="model, tasks, output, warm_up, hooks")
    if built.write.dry_run:  # the CLI prints a preview instead of running; here that would call the model
        raise TypeError(
            "evaluate() runs the model; for a dry run use omnieval.runner.preview.plan_requests(config)"
        )
    spec, backend = _model_spec(model, backend_options(built))
    how = executor_options(built)
    with _run_dir(output) as out:
        # tasks recorded as the CLI records them, so either can resume the other's run
        config = run_config(built, tasks=joined_tasks(tasks), model=spec, output=out)
        if backend is None:
            from omnieval.backends import check_backend_options

            check_backend_options(config.model, config.backend)
            outcome, results = evaluate_config(config, executor=how, hooks=hooks, warm_up=warm_up)
        else:
            if how.kind != "local":
                raise TypeError(
                    "a model object runs with the local executor only; pass a PROVIDER/NAME spec for Ray"
                )
            if hooks:
                raise TypeError("hook objects need a PROVIDER/NAME model spec, not a model object")
            outcome, results = evaluate_backend(config, backend, warm_up=warm_up)
        evaluated = _typed(
            results,
            out,
            outcome=outcome,
            kept=output is not None,
            max_error_rate=config.max_error_rate,
        )
    from omnieval.runs.notices import warn_about_run

    warn_about_run(evaluated.results, unknown_sample_ids=evaluated.unknown_sample_ids)
    return evaluated


def _typed(
    results: ResultsFile,
    run_dir: Path,
    *,
    outcome: RunOutcome | None = None,
    kept: bool = True,
    max_error_rate: float | None = None,
) -> EvalResults:
    """The typed results; an in-memory run's samples are read here (its folder goes next), a kept run
    directory's when first asked for."""
    from omnieval.store import typed_records

    records = run_dir / "samples.jsonl"
    return EvalResults.of(
        samples=None if kept else typed_records(records),
        read_samples=functools.partial(typed_records, records) if kept else None,
        results=results,
        run_dir=run_dir if kept else None,
        failure=error_rate_failure(results, max_error_rate=max_error_rate),
        unknown_sample_ids=tuple(outcome.unknown_sample_ids) if outcome is not None else (),
    )


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


def load_results(run_dir: str | Path) -> EvalResults:
    """A run directory's results.json, typed (older unversioned files included), with its samples from
    samples.jsonl when there is one; a file that does not validate (an unknown key, a wrong type) is a
    :class:`~omnieval.errors.StoreError` naming the file and the key."""
    from omnieval.types.files import load_file

    run_dir = Path(run_dir)
    return _typed(load_file(run_dir / "results.json", ResultsFile), run_dir)


def score(run_dir: str | Path) -> EvalResults:
    """Re-score a run's stored responses with the current parsers and metrics (``omnieval score``)."""
    from omnieval.runs.stored import rescore_run

    return _typed(rescore_run(Path(run_dir)), Path(run_dir))


def rejudge(run_dir: str | Path, *, judge: Any) -> EvalResults:
    """Re-judge stored responses with ``judge`` (a spec, a dict of JudgeConfig fields or a JudgeConfig);
    only judge-derived values change (``omnieval rejudge``)."""
    from omnieval.runs.stored import rejudge_run

    if judge is None:
        raise TypeError("rejudge() needs judge=")
    config = run_judge(run_options({"judge": judge}, caller="rejudge", own="run_dir, judge"))
    assert config is not None  # a judge was given: a spec, a JudgeConfig or a mapping of its fields
    return _typed(rejudge_run(Path(run_dir), config), Path(run_dir))


def merge(*runs: str | Path, output: str | Path, allow_partial: bool = False) -> EvalResults:
    """Join the run folders of shards (``omnieval run --shard I/N``) into ``output``, whose records,
    results and report are those of one unsharded run (``omnieval merge``). Refused, naming it, when a
    shard is missing or incomplete, the runs differ in model or settings, or a sample is held twice with
    different content; ``allow_partial`` merges what exists and leaves the rest unfinished (running the
    missing shards and merging again completes it; so does ``evaluate`` into ``output``)."""
    from omnieval.runs.merge import merge_runs

    if not runs:
        raise TypeError("merge() needs one or more run directories")
    merged = merge_runs([Path(r) for r in runs], output=Path(output), allow_partial=allow_partial)
    if not merged.finished:
        import sys

        lacking = ", ".join(f"{task}: {n}" for task, n in merged.missing.items())
        print(
            f"omnieval: merge: {output} is unfinished, records missing ({lacking}); run the missing shards "
            "and merge again",
            file=sys.stderr,
        )
    return _typed(merged.results, Path(output))


def compare(*runs: str | Path, output: str | Path | None = None, seed: int = 0) -> Comparison:
    """Paired comparison of two or more runs (``omnieval compare``); with ``output`` also its files
    (compare.html, compare.json, tables/)."""
    from omnieval.reports.compare import compare_runs

    if len(runs) < 2:
        raise TypeError("compare() needs two or more run directories")
    doc = compare_runs([Path(r) for r in runs], seed=seed)
    if output is not None:
        from omnieval.reports.compare_page import write_comparison

        write_comparison(doc, Path(output))
    return Comparison.model_validate(doc)


def report(run_dir: str | Path, *, prompts: bool = True) -> Path:
    """Render ``report.html`` again from the stored records; returns its path (``omnieval report``).
    With ``prompts`` the sample viewer shows each prompt and its media, rebuilt from the task data; a
    run whose tasks cannot be resolved any more renders without them and says why on stderr."""
    import sys

    from omnieval.reports.html import write_report
    from omnieval.runs.stored import tasks_of_run

    tasks = None
    if prompts:
        tasks, problem = tasks_of_run(Path(run_dir))
        if problem:
            print(f"omnieval: note: prompts and media not shown ({problem})", file=sys.stderr)
    return Path(write_report(Path(run_dir), tasks=tasks))


def sweep(
    *,
    output: str | Path,
    models: Sequence[str] | str | None = None,
    tasks: Sequence[str] | str | None = None,
    config: str | Path | None = None,
    scheme: str | None = None,
    scheme_options: dict[str, Any] | None = None,
    models_at_once: int | None = None,
    **options: Any,
) -> LeaderboardFile:
    """Every model on every task, one run directory each under ``output``, and ``leaderboard.json``
    (``omnieval sweep``); returns the leaderboard. ``config`` a sweep file (YAML: models, tasks), which
    ``models``/``tasks`` override; ``options`` as for :func:`evaluate` (a model's own ``base_url`` and
    backend options from the sweep file win). A model that fails is a row with its status and an entry
    of ``failed``; the others finish."""
    from omnieval.executors.sweep import load_sweep
    from omnieval.runs.sweep import run_sweep, write_leaderboard

    built = run_options(
        options, caller="sweep", own="models, tasks, config, output, scheme, scheme_options, models_at_once"
    )
    if scheme is not None:  # a bad scheme option fails now, not after every model has run
        from omnieval.aggregate.schemes import checked_scheme

        checked_scheme(scheme, scheme_options or {})
    spec = load_sweep(
        Path(config) if config is not None else None,
        models=_joined(models),
        tasks=_joined(tasks),
        models_at_once=models_at_once,
    )
    runs = run_sweep(
        sweep_configs(built, spec, output=Path(output)),
        executor_options(built),
        models_at_once=spec.models_at_once,
        quiet=built.write.quiet,
    )
    document = write_leaderboard(Path(output), runs, scheme=scheme, options=scheme_options or {})
    return LeaderboardFile.model_validate(document)


def _joined(names: Sequence[str] | str | None) -> str | None:
    """A list of names as the sweep file's comma-separated form (``None``: the sweep file's own)."""
    if names is None or isinstance(names, str):
        return names or None
    return ",".join(names) or None
