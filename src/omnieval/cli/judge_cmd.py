"""``omnieval rejudge`` and the ``omnieval judge`` group (``judge train``; audits add their commands here)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.cli._common import check_run_dirs, friendly_errors
from omnieval.cli.option_params import cli_values, option_error, option_parameters, with_options

__all__ = ["judge_app", "rejudge_command"]

judge_app = typer.Typer(
    name="judge", help="Judge models: train an encoder judge, audit judges.", no_args_is_help=True
)
Opt = typer.Option
Arg = typer.Argument


@with_options(lambda: judge_parameters(exclude=("judge", "judge_replicas", "judge_gpus_per_replica")))
def rejudge_command(
    run_dir: Annotated[Path, Arg(help="A run directory (samples.jsonl, manifest.json).")],
    judge: Annotated[str, Opt("--judge", help="Judge model PROVIDER/NAME.", rich_help_panel="Judges")],
    **judge_options: Any,
) -> None:
    """Re-judge stored responses with another judge (no model call); only judge-derived values change."""
    from rich.console import Console

    from omnieval import api
    from omnieval.reports.html import results_table

    check_run_dirs([run_dir], needs=("manifest.json", "samples.jsonl"))
    with friendly_errors():
        results = api.rejudge(run_dir, judge=judge_from_cli(judge, judge_options))
    Console(width=120).print(results_table(results.results))


def judge_parameters(**which: Any) -> Any:
    """The typer parameters of the judge options (``exclude=`` or ``only=`` some)."""
    from omnieval.options import JudgeOptions

    return option_parameters([JudgeOptions], **which)


def judge_from_cli(judge: str | None, options: dict[str, Any]) -> Any:
    """The ``JudgeConfig`` of ``--judge`` and the ``--judge-*`` options (``None`` without ``--judge``); a
    bad value is a one-line error naming its flag."""
    from pydantic import ValidationError

    from omnieval.cli._common import fail
    from omnieval.options import JudgeOptions
    from omnieval.options.build import judge_config

    try:
        return judge_config(JudgeOptions(judge=judge, **cli_values(options)))
    except ValidationError as exc:
        fail(option_error(exc))


@judge_app.command("train")
def train_command(
    data: Annotated[
        Path,
        Arg(
            help="Labelled triplets: CSV or JSONL with question, gold, prediction, label (0/1), optional "
            "source."
        ),
    ],
    base: Annotated[str, Opt("--base", help="Base encoder folder (e.g. a RuModernBERT checkpoint).")],
    output: Annotated[
        Path, Opt("--output", "-o", help="Folder for the trained judge (use it as --judge hf/FOLDER).")
    ],
    epochs: Annotated[int, Opt(help="Training epochs (early stopping on dev F1 may stop sooner).")] = 3,
    lr: Annotated[float, Opt(help="Learning rate (AdamW, linear schedule).")] = 2e-5,
    batch_size: Annotated[int, Opt(help="Batch size.")] = 16,
    max_length: Annotated[int, Opt(help="Max tokens per triplet.")] = 512,
    patience: Annotated[int, Opt(help="Epochs without a better dev F1 before stopping.")] = 2,
    seed: Annotated[int, Opt(help="Split and training seed.")] = 0,
    device: Annotated[str | None, Opt(help="Device (cpu, cuda).")] = None,
) -> None:
    """Fine-tune an encoder judge; reports F1 / precision / recall / EM-agreement on the held-out test
    split."""
    from omnieval.cli._common import print_json
    from omnieval.judges.train import TrainSettings, train_judge

    with friendly_errors():
        settings = TrainSettings(
            epochs=epochs,
            lr=lr,
            batch_size=batch_size,
            max_length=max_length,
            patience=patience,
            seed=seed,
            device=device,
        )
        report = train_judge(data, base=base, output=output, settings=settings)
    print_json(
        {
            "output": str(output),
            "test": report["test"],
            "best_dev_f1": report["best_dev_f1"],
            "splits": report["splits"],
        }
    )
