"""``omnieval report``, ``omnieval compare`` and ``omnieval analyze ...``: reports from stored records."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.cli._common import check_run_dirs, comma_joined, friendly_errors

__all__ = ["analyze_app", "compare_command", "report_command"]

Arg, Opt = typer.Argument, typer.Option


def _tasks_of(run_dir: Path) -> tuple[list[Any] | None, str | None]:
    """The run's tasks, resolved from its manifest, so the viewer can show prompts and media."""
    from omnieval.runner import RunConfig, resolve_tasks
    from omnieval.types.files import ManifestFile, load_file

    try:
        config = RunConfig.model_validate(load_file(run_dir / "manifest.json", ManifestFile).config)
        return resolve_tasks(config.tasks, strict_metrics=config.strict_metrics), None
    except Exception as exc:  # the report renders without prompts and says why
        return None, f"{type(exc).__name__}: {exc}"


def report_command(
    run_dir: Annotated[Path, Arg(help="A run directory (finished or killed).")],
    no_prompts: Annotated[
        bool, Opt("--no-prompts", help="Do not rebuild prompts and media from the task data.")
    ] = False,
) -> None:
    """Re-render report.html (and its sample viewer and tables) from the stored records."""
    from omnieval.reports.html import write_report

    check_run_dirs([run_dir])
    with friendly_errors():
        tasks, problem = (None, None) if no_prompts else _tasks_of(run_dir)
        if problem:
            print(f"omnieval: note: prompts and media not shown ({problem})", file=sys.stderr)
        path = write_report(run_dir, tasks=tasks)
    print(path)


def compare_command(
    run_dirs: Annotated[
        list[Path], Arg(help="Two or more run directories; a run's label is its directory name.")
    ],
    output: Annotated[
        Path, Opt("--output", "-o", help="Folder for compare.html, compare.json and tables/.")
    ] = Path("compare"),
    seed: Annotated[int, Opt(help="Seed of the bootstrap and permutation resampling.")] = 0,
) -> None:
    """Compare runs: leaderboard, paired bootstrap CIs and tests per task (Holm-corrected), flipped
    samples."""
    from rich.console import Console
    from rich.table import Table

    from omnieval.reports.compare import compare_runs
    from omnieval.reports.compare_page import leaderboard_rows, write_comparison

    check_run_dirs(run_dirs)
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
        table.add_row(
            row["run"], *(f"{row[k]:.4f}" if row[k] is not None else "–" for k in ["mean", *doc["tasks"]])
        )
    Console(width=160).print(table)
    print(doc["multiple_comparisons"]["statement"])
    print(f"wrote {paths['html']} and {paths['json']}")


analyze_app = typer.Typer(
    help="Analyses over stored runs: prompt sensitivity, stability, subsets.", no_args_is_help=True
)


def _write(output: Path, name: str, title: str, built: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    from omnieval.reports.analysis_page import write_analysis

    sections, summary = built
    path = write_analysis(output, name=name, title=title, sections=sections, summary=summary)
    for section in sections:
        for table in section["tables"]:
            print(f"{section['title']} — {table['title']}: {output / 'tables' / table['name']}.md")
    print(f"wrote {path}")


@analyze_app.command("prompts")
def prompts_command(
    run_dirs: Annotated[
        list[Path], Arg(help="Runs with prompt variants (several models/engines make the OLS meaningful).")
    ],
    output: Annotated[Path, Opt("--output", "-o")] = Path("analysis"),
    metric: Annotated[str | None, Opt(help="Per-sample metric key (default: the sample score).")] = None,
    task: Annotated[list[str] | None, Opt(help="Only these tasks (repeatable).")] = None,
    factor: Annotated[
        list[str] | None, Opt(help="Extra factor: a sample metadata key, e.g. domain (repeatable).")
    ] = None,
) -> None:
    """MERA prompt sensitivity: OLS metric ~ C(prompt) + C(model) + C(engine), a two-sided test per prompt."""
    from omnieval.reports.analyses import prompt_sensitivity_analysis

    check_run_dirs(run_dirs)
    with friendly_errors():
        built = prompt_sensitivity_analysis(run_dirs, metric=metric, tasks=task, factors=factor)
        for name, fit in built[1]["fits"].items():
            if fit["warning"]:
                print(f"WARNING: task {name!r}: {fit['warning']}", file=sys.stderr)
        _write(output, "prompt_sensitivity", "Prompt sensitivity", built)


_SIZES = "3,5,7,9,11,13,15"


@analyze_app.command("stability")
def stability_command(
    run_dirs: Annotated[list[Path], Arg(help="Run directories.")],
    output: Annotated[Path, Opt("--output", "-o")] = Path("analysis"),
    sizes: Annotated[
        list[str] | None,
        Opt(help=f"Samples per task to try: comma-separated, or the option repeated (default {_SIZES})."),
    ] = None,
    resamples: Annotated[int, Opt(help="Monte-Carlo repetitions per size.")] = 10_000,
) -> None:
    """MEGA-Bench bootstrap stability of the macro score vs samples per task."""
    from omnieval.reports.analyses import stability_analysis

    check_run_dirs(run_dirs)
    with friendly_errors():
        built = stability_analysis(
            run_dirs,
            sizes=[int(s) for s in (comma_joined(sizes) or _SIZES).split(",") if s.strip()],
            n_resamples=resamples,
        )
        _write(output, "stability", "Bootstrap stability vs samples per task", built)


@analyze_app.command("subsets")
def subsets_command(
    run_dirs: Annotated[list[Path], Arg(help="Run directories.")],
    output: Annotated[Path, Opt("--output", "-o")] = Path("analysis"),
    size: Annotated[int, Opt(help="Samples per draw (ART-H: 216).")] = 216,
    draws: Annotated[int, Opt(help="Random draws (ART: 100).")] = 100,
    seed: Annotated[int, Opt()] = 0,
) -> None:
    """ART subset stability: score over random subsets of fixed size (mean ± std, min, max)."""
    from omnieval.reports.analyses import subset_analysis

    check_run_dirs(run_dirs)
    with friendly_errors():
        try:
            built = subset_analysis(run_dirs, size=size, draws=draws, seed=seed)
        except ValueError as exc:
            from omnieval.cli._common import fail

            fail(str(exc))
            return
        _write(output, "subsets", "Subset stability", built)
