"""``omnieval report``, ``omnieval compare`` and ``omnieval analyze ...``: reports from stored records."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.cli._common import check_run_dirs, comma_joined, friendly_errors

__all__ = ["analyze_app", "compare_command", "report_command"]

Arg, Opt = typer.Argument, typer.Option


def report_command(
    run_dir: Annotated[Path, Arg(help="A run directory (finished or killed).")],
    no_prompts: Annotated[
        bool, Opt("--no-prompts", help="Do not rebuild prompts and media from the task data.")
    ] = False,
) -> None:
    """Re-render report.html (and its sample viewer and tables) from the stored records."""
    from omnieval import api

    check_run_dirs([run_dir])
    with friendly_errors():
        path = api.report(run_dir, prompts=not no_prompts)
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

    from omnieval import api
    from omnieval.reports.compare_page import leaderboard_rows

    check_run_dirs(run_dirs)
    with friendly_errors():
        comparison = api.compare(*run_dirs, output=output, seed=seed)
    doc = comparison.model_dump(mode="json", by_alias=True)
    err = Console(stderr=True)
    for line in comparison.warnings:
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
    if (paired := _paired_table(comparison)) is not None:
        Console(width=160).print(paired)
    print(comparison.multiple_comparisons.statement)
    print(f"wrote {output / 'compare.html'} and {output / 'compare.json'}")


def _paired_table(comparison: Any) -> Any:
    """Each pair of runs per task: the difference, its paired bootstrap CI and the paired test's p (named:
    McNemar's exact test for 0/1 scores, a sign-flip permutation test otherwise), unadjusted and Holm's;
    the terminal mentioned p-values and showed none."""
    from rich.table import Table

    holm = {(a.a, a.b, a.task): a.p_holm for a in comparison.multiple_comparisons.adjusted}
    table = Table(title="paired differences (b − a over the samples both scored)")
    for column in ("task", "a → b", "diff", "95% CI (paired bootstrap)", "p", "test", "p (Holm)", "n"):
        table.add_column(column, justify="left" if column in ("task", "a → b", "test") else "right")
    for task, block in comparison.tasks.items():
        for pair in block.pairwise:
            table.add_row(
                task,
                f"{pair.a} → {pair.b}",
                "–" if pair.diff is None else f"{pair.diff:+.4f}",
                "–" if pair.ci95 is None else f"[{pair.ci95[0]:+.3f}, {pair.ci95[1]:+.3f}]",
                "–" if pair.p_value is None else f"{pair.p_value:.3g}",
                pair.test or "–",
                f"{holm[pair.a, pair.b, task]:.3g}" if (pair.a, pair.b, task) in holm else "–",
                str(pair.n_paired),
            )
    return table if table.row_count else None


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
