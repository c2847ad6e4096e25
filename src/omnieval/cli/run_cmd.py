"""``omnieval run``: its options are generated from the option models (``omnieval/options``); the run is
:func:`omnieval.evaluate` with them as keywords."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from omnieval.cli._common import fail, friendly_errors
from omnieval.cli.option_params import checked_options, cli_values, option_parameters, with_options

if TYPE_CHECKING:
    from omnieval.options.build import RunOptions
    from omnieval.types.files import ResultsFile

__all__ = ["run_command"]

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
    """The run through :func:`omnieval.evaluate`, then its table (the warnings are the API's)."""
    from omnieval import api
    from omnieval.cli import startup

    startup.tune_for_the_requests()  # the console script's process only (cli.app.main set it up)
    started = time.perf_counter()
    if keywords.get("executor") == "ray":  # Ray's own lines go to OUTPUT/ray.log, not the terminal
        from omnieval.cli.ray_logs import ray_output_to_file

        with ray_output_to_file(Path(target["output"])):
            result = api.evaluate(**target, warm_up=True, **keywords)
    else:
        result = api.evaluate(**target, warm_up=True, **keywords)
    if not keywords.get("quiet"):
        _print_summary(result.results, output=target["output"], seconds=time.perf_counter() - started)
    if result.failure is not None:
        print(f"omnieval: {result.failure}", file=sys.stderr)
        raise typer.Exit(3)
    if not sum(result.states.values()) and not keywords.get("shard"):  # a shard's share may be empty
        fail("no samples were selected (check --limit / --sample-ids)", code=1)


def _print_summary(results: ResultsFile, *, output: Path, seconds: float) -> None:
    # imported after the run (rich ≈ 0.05 s, the result models): the api's warm-up thread has loaded
    # them while the model worked, and the first request did not wait for them
    from rich.console import Console

    from omnieval.reports.html import results_table

    console = Console(stderr=False, width=120)
    console.print(results_table(results))
    console.print(f"run wall time {seconds:.1f}s (tasks run concurrently; per-task busy times overlap)")
    console.print(f"report: {Path(output) / 'report.html'}")
