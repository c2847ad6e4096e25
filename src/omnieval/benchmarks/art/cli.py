"""``omnieval art summary RUN...``: the Yes/No protocol's numbers averaged over repeated runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from omnieval.registry import cli_apps

__all__ = ["app"]

app = typer.Typer(help="ART audio reasoning: summaries over repeated runs.", no_args_is_help=True)


@app.callback()
def _group() -> None:
    """ART audio reasoning (generate sets with `omnieval generate art`)."""


@app.command("summary")
def summary_cmd(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run directories of the same ART set (e.g. 5 runs).")
    ],
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """% relevant, absolute and relative accuracy per task and overall: mean (± std) over the runs."""
    from omnieval.benchmarks.art.summary import KEYS, summarize_runs
    from omnieval.errors import OmnievalError

    try:
        table = summarize_runs(run_dirs)
    except OmnievalError as exc:
        typer.echo(f"omnieval: error: {exc}", err=True)
        raise typer.Exit(2) from None
    if json_out:
        typer.echo(json.dumps(table, indent=2))
        return
    typer.echo(
        f"{'task':<10} {'% relevant':>18} {'absolute acc.':>18} {'relative acc.':>18}   ({len(run_dirs)} "
        "runs)"
    )
    for name, metrics in table.items():
        cells = [
            f"{metrics[k]['mean'] * (100 if k == 'art.relevant' else 1):8.4f} ± {metrics[k]['std']:.4f}"
            for k in KEYS
        ]
        typer.echo(f"{name:<10} " + " ".join(f"{c:>18}" for c in cells))


cli_apps.add("art", app)
