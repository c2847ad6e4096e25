"""``omnieval run``: its options are generated from the option models (``omnieval/options``); the run is
:func:`omnieval.library.evaluate` with them as keywords."""

from __future__ import annotations

import gc
import sys
import time
from typing import TYPE_CHECKING, Any

import typer

from omnieval.cli._common import fail, friendly_errors, warn_unknown_sample_ids
from omnieval.cli.option_params import checked_options, cli_values, option_parameters, with_options

if TYPE_CHECKING:
    from omnieval.options.build import RunOptions
    from omnieval.types.files import ResultsFile

__all__ = ["run_command", "warn_on_hook_failures", "warn_unknown_sample_ids"]

TARGET = ("tasks", "model", "output")
"""The options that are arguments of their own in the keyword API."""


@with_options(option_parameters)
def run_command(**options: Any) -> None:
    """Run (or resume) an evaluation and write samples.jsonl, results.json, report.html."""
    keywords = cli_values(options)
    target = {name: keywords.pop(name) for name in TARGET}
    with friendly_errors():
        checked = checked_options(keywords, target)
        if checked.write.dry_run:
            _dry_run(checked, target)
            return
        _run(target, keywords)


def _dry_run(options: RunOptions, target: dict[str, Any]) -> None:
    from omnieval.backends import check_backend_options
    from omnieval.cli.dry_run import print_dry_run
    from omnieval.options.build import joined_tasks, run_config

    config = run_config(
        options, tasks=joined_tasks(target["tasks"]), model=target["model"], output=target["output"]
    )
    check_backend_options(config.model, config.backend)  # a misspelt option fails before any work
    print_dry_run(config)


def _run(target: dict[str, Any], keywords: dict[str, Any]) -> None:
    from omnieval.library import evaluate

    if not gc.isenabled():  # `omnieval run` itself (cli.app.main) set up with collection off
        _collect_for_a_run()
    started = time.perf_counter()
    result = evaluate(**target, warm_up=True, **keywords)
    # imported after the run (rich ≈ 0.05 s, the result models): the api's warm-up thread has loaded
    # them while the model worked, and the first request did not wait for them
    from rich.console import Console

    from omnieval.reports import results_table

    results = result.results
    console = Console(stderr=False, width=120)
    console.print(results_table(results))
    console.print(
        f"run wall time {time.perf_counter() - started:.1f}s (tasks run concurrently; per-task busy times "
        "overlap)"
    )
    console.print(f"report: {target['output'] / 'report.html'}")
    _warn_on_errors(results)
    warn_on_hook_failures(results.extra("hooks") or {})
    warn_unknown_sample_ids(result.unknown_sample_ids)
    if result.failure is not None:
        print(f"omnieval: {result.failure}", file=sys.stderr)
        raise typer.Exit(3)
    if sum(results.states.values()) == 0:
        fail("no samples were selected (check --limit / --sample-ids)", code=1)


GC_THRESHOLDS = (20_000, 10, 10)
"""Young objects collected every 20,000 allocations (Python's default: 700), the older generations every
10 collections of the one below."""


def _collect_for_a_run() -> None:
    """The garbage collector turned back on, tuned for a process that keeps what it imported until it
    exits: the objects made during the set-up (modules, classes, models, the configuration) are frozen
    out of every later collection, and young objects are collected less often. Collections went over
    the set-up's objects again and again: ≈ 70 ms of a 2,000-request run's CPU, ≈ 20 ms after
    (docs/dev/performance.md). Garbage cycles left by the set-up stay until exit (one-off, a few kB)."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    gc.enable()


def warn_on_hook_failures(report: dict[str, Any]) -> None:
    """A tracker that failed never failed the run; one line per hook says how often and the first error."""
    for name, tally in report.items():
        if isinstance(tally, dict) and tally.get("failures"):
            print(
                f"omnieval: hook {name} failed {tally['failures']} time(s) (first: {tally['first_error']}); "
                "the results above are complete",
                file=sys.stderr,
            )
    if report.get("dropped_events"):
        print(f"omnieval: {report['dropped_events']} hook event(s) dropped (hooks too slow)", file=sys.stderr)


def _warn_on_errors(results: ResultsFile) -> None:
    """One line per task with any sample in error (count and top causes) or left unscored (no gold answer)."""
    from omnieval.reports import error_warning, unscored_warning

    for name, block in results.tasks.items():
        for line in (error_warning(name, block), unscored_warning(name, block)):
            if line:
                print(f"omnieval: {line}", file=sys.stderr)
