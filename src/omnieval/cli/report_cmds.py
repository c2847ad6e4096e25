"""``omnieval report``, ``omnieval compare`` and ``omnieval analyze ...``: reports from stored records."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.cli._common import friendly_errors

__all__ = ["analyze_app", "compare_command", "report_command"]

Arg, Opt = typer.Argument, typer.Option


def _tasks_of(run_dir: Path) -> tuple[list[Any] | None, str | None]:
    """The run's tasks, resolved from its manifest, so the viewer can show prompts and media."""
    from omnieval.runner import RunConfig, resolve_tasks
    from omnieval.store import read_json

    try:
        config = RunConfig.model_validate(read_json(run_dir / "manifest.json")["config"])
        return resolve_tasks(config.tasks, strict_metrics=config.strict_metrics), None
    except Exception as exc:  # the report renders without prompts and says why
        return None, f"{type(exc).__name__}: {exc}"


def report_command(
    run_dir: Annotated[Path, Arg(help="A run directory (finished or killed).")],
    no_prompts: Annotated[bool, Opt("--no-prompts", help="Do not rebuild prompts and media from the task data.")] = False,
) -> None:
    """Re-render report.html (and its sample viewer and tables) from the stored records."""
    from omnieval.reports import write_report

    with friendly_errors():
        tasks, problem = (None, None) if no_prompts else _tasks_of(run_dir)
        if problem:
            print(f"omnieval: note: prompts and media not shown ({problem})", file=sys.stderr)
        path = write_report(run_dir, tasks=tasks)
    print(path)


def compare_command(
    run_dirs: Annotated[list[Path], Arg(help="Two or more run directories; a run's label is its directory name.")],
    output: Annotated[Path, Opt("--output", "-o", help="Folder for compare.html, compare.json and tables/.")] = Path("compare"),
    seed: Annotated[int, Opt(help="Seed of the bootstrap and permutation resampling.")] = 0,
) -> None:
    """Compare runs: leaderboard, paired bootstrap CIs and tests per task (Holm-corrected), flipped samples."""
    from rich.console import Console
    from rich.table import Table

    from omnieval.reports.compare import compare_runs
    from omnieval.reports.compare_page import leaderboard_rows, write_comparison

    with friendly_errors():
        doc = compare_runs(run_dirs, seed=seed)
        paths = write_comparison(doc, output)
    err = Console(stderr=True)
    for line in doc["warnings"]:
        err.print(f"[bold yellow]WARNING[/]: {line}", highlight=False)
    table = Table(title="leaderboard")
    table.add_column("run")
    table.add_column("mean", justify="right")
    for task in doc["tasks"]:
        table.add_column(task, justify="right")
    for row in leaderboard_rows(doc):
        table.add_row(row["run"], *(f"{row[k]:.4f}" if row[k] is not None else "–" for k in ["mean", *doc["tasks"]]))
    Console(width=160).print(table)
    print(doc["multiple_comparisons"]["statement"])
    print(f"wrote {paths['html']} and {paths['json']}")


analyze_app = typer.Typer(help="Analyses over stored runs: prompt sensitivity, stability, subsets.", no_args_is_help=True)
