"""``omnieval judge-agreement``: how closely a judge's scores follow human experts' (fixed interface)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from omnieval.cli._common import fail, friendly_errors, print_json

__all__ = ["judge_agreement_command"]

Opt = typer.Option


def judge_agreement_command(
    human: Annotated[Path, Opt("--human", help="JSONL: item_id, criterion, annotator, score.")],
    judge: Annotated[Path, Opt("--judge", help="JSONL: item_id, criterion, score.")],
    json_out: Annotated[bool, Opt("--json", help="Print the statistics as one JSON object.")] = False,
    seed: Annotated[int, Opt(help="Seed of the judge-substitution trials.")] = 0,
    trials: Annotated[int, Opt(help="Judge-substitution trials per item.")] = 100,
    reference: Annotated[str, Opt(help="mode (generative judges) or mean (regression judges).")] = "mode",
) -> None:
    """MAE vs the expert mode, expert and judge Verdict Confidence, pooled Spearman ρ."""
    from omnieval.analysis import judge_agreement, load_agreement_files

    if reference not in ("mode", "mean"):
        fail(f"--reference must be 'mode' or 'mean', got {reference!r}")
    if trials < 1:
        fail("--trials must be at least 1")
    with friendly_errors():
        stats = judge_agreement(
            load_agreement_files(human, judge),
            seed=seed,
            trials=trials,
            reference=reference,  # type: ignore[arg-type]
        )
    if stats["n_items"] == 0:
        fail(f"no item (item_id + criterion) has both human and judge scores in {human} and {judge}")
    if json_out:
        print_json(stats)
        return
    for key, value in stats.items():
        shown = "—" if value is None else (f"{value:.4f}" if isinstance(value, float) else value)
        typer.echo(f"{key:20} {shown}")
