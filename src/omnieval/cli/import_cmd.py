"""``omnieval import``: other harnesses' results as omnieval run folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from omnieval.cli._common import friendly_errors

__all__ = ["import_app"]

import_app = typer.Typer(
    help="Read other harnesses' results into an omnieval run folder.", no_args_is_help=True
)


@import_app.command("lm-eval")
def lm_eval_command(
    results: Annotated[
        Path,
        typer.Argument(help="lm-eval's results_*.json (its samples_TASK_*.jsonl beside it are read too)."),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="A new run folder.")],
    metric: Annotated[
        str | None,
        typer.Option(
            help="The metric to score by, e.g. acc_norm or 'exact_match,flexible-extract' (default: each "
            "task's first)."
        ),
    ] = None,
) -> None:
    """lm-evaluation-harness results and sample logs → samples.jsonl, results.json, manifest.json."""
    from omnieval.interchange.lm_eval import import_lm_eval
    from omnieval.types.files import results_model

    with friendly_errors():
        done = results_model(
            import_lm_eval(results, output=output, metric=metric), source=output / "results.json"
        )
    for task, block in done.tasks.items():
        score = "–" if block.score is None else f"{block.score:.4f}"
        print(f"{task}: {score} ({block.score_metric}, n={block.n})")
