"""``omnieval marker ...``: item analysis over several models' runs."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from omnieval.registry import cli_apps

__all__ = ["app"]

app = typer.Typer(help="MARKER: item Simplicity analysis across models.", no_args_is_help=True)


@app.callback()
def marker_group() -> None:
    """MARKER: item Simplicity analysis across models."""


@app.command("simplicity")
def simplicity_cmd(
    runs: Annotated[list[Path], typer.Argument(help="Run directories, one per model.")],
    task: Annotated[str, typer.Option(help="Task name inside the runs.")] = "marker_demo",
    metric: Annotated[
        str | None, typer.Option(help="Metric key per sample (default: the sample score).")
    ] = None,
    top: Annotated[int, typer.Option(help="How many hardest and easiest items to show.")] = 60,
    json_out: Annotated[bool, typer.Option("--json", help="Machine-readable output with all items.")] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Also write simplicity.html and its tables (MD/CSV/JSON) here."),
    ] = None,
) -> None:
    """Rank items from hardest to easiest by the share of models that solve them."""
    from omnieval.benchmarks.marker.simplicity import FORMULA, load_run, rank_items
    from omnieval.errors import OmnievalError

    try:
        stats = rank_items([load_run(r, task=task, metric=metric) for r in runs])
    except OmnievalError as exc:
        typer.echo(f"omnieval marker: {exc}", err=True)
        raise typer.Exit(2) from None
    if output is not None:
        from omnieval.benchmarks.marker.simplicity_page import write_simplicity_page

        typer.echo(f"wrote {write_simplicity_page(stats, output, top=top)}")
    if json_out:
        typer.echo(
            json.dumps(
                {"formula": FORMULA, "items": [asdict(s) for s in stats]}, ensure_ascii=False, indent=2
            )
        )
        return
    typer.echo(f"formula: {FORMULA}")
    for title, chosen in (("hardest", stats[:top]), ("easiest", stats[::-1][:top])):
        typer.echo(f"\n{title}:")
        for s in chosen:
            cc = "-" if s.chance_corrected is None else f"{s.chance_corrected:.2f}"
            typer.echo(
                f"  {s.item:30s} simplicity {s.simplicity:.2f}  weighted {s.weighted:.2f}  chance-corr {cc}"
            )
            for model, answer in s.answers.items():
                typer.echo(f"      {model}: {answer[:100]}")


cli_apps.add("marker", app)
