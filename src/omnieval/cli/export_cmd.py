"""``omnieval export``: a run's results in other tools' formats."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from omnieval.cli._common import friendly_errors

__all__ = ["export_app", "push_command"]

export_app = typer.Typer(help="Write a run's results in other tools' formats.", no_args_is_help=True)


@export_app.command("hf-eval-results")
def hf_eval_results_command(
    run_dir: Annotated[Path, typer.Argument(help="A finished run directory (holds results.json).")],
    model_id: Annotated[str, typer.Option("--model-id", help="The model's Hub id, ORG/NAME.")],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Folder that receives .eval_results/ and model-index.yaml.")
    ],
    source_url: Annotated[
        str | None, typer.Option(help="Where the evaluation can be seen (shown on the Hub).")
    ] = None,
) -> None:
    """The Hugging Face Hub's .eval_results/*.yaml (one per task) and a model-card model-index block."""
    from omnieval.interchange import write_hf_eval_results

    with friendly_errors():
        for path in write_hf_eval_results(run_dir, model_id=model_id, output=output, source_url=source_url):
            print(path)


@export_app.command("eee")
def eee_command(
    run_dir: Annotated[Path, typer.Argument(help="A finished run directory.")],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="Folder that receives data/omnieval/DEV/MODEL/UUID.json and _samples.jsonl.",
        ),
    ],
    model_id: Annotated[
        str | None, typer.Option(help="The model's id in Hub form, ORG/NAME (default: the run's model spec).")
    ] = None,
) -> None:
    """Every Eval Ever (schema 0.3.0): one aggregate JSON and one JSONL line per sample."""
    from omnieval.interchange.eee import write_eee

    with friendly_errors():
        for path in write_eee(run_dir, output=output, model_id=model_id):
            print(path)


@export_app.command("inspect")
def inspect_command(
    run_dir: Annotated[Path, typer.Argument(help="A finished run directory.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Folder for TASK.eval (default: RUN/inspect).")
    ] = None,
) -> None:
    """inspect_ai .eval logs, one per task (open with `inspect view --log-dir DIR`)."""
    from omnieval.interchange.inspect_log import write_inspect_logs

    with friendly_errors():
        for path in write_inspect_logs(run_dir, output=output or run_dir / "inspect"):
            print(path)


def push_command(
    run_dir: Annotated[Path, typer.Argument(help="A finished run directory (holds results.json).")],
    repo: Annotated[
        str, typer.Option("--repo", help="The model repository on the Hub, ORG/NAME (must exist).")
    ],
    revision: Annotated[str | None, typer.Option(help="Branch to commit to (default: main).")] = None,
) -> None:
    """Upload the run's .eval_results/*.yaml to a Hub model repo (token: HF_TOKEN or `hf auth login`;
    HF_ENDPOINT)."""
    from omnieval.interchange.hub_push import push_eval_results

    with friendly_errors():
        print(push_eval_results(run_dir, repo=repo, revision=revision))
