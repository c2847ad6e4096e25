"""``omnieval sweep``: models × tasks, one run directory per model, one leaderboard over them."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from omnieval.cli._common import comma_joined, fail, friendly_errors, parse_kv, print_json
from omnieval.cli.option_params import checked_options, cli_values, option_parameters, with_options

if TYPE_CHECKING:
    from omnieval.types.files import LeaderboardFile

__all__ = ["sweep_command"]

Opt = typer.Option


def _groups() -> Any:
    from omnieval.options import GROUPS

    return GROUPS


@with_options(lambda: option_parameters(_groups(), exclude=("dry_run",)))
def sweep_command(
    models: Annotated[
        list[str] | None,
        Opt("--models", help="PROVIDER/NAME models: comma-separated, or the option repeated."),
    ] = None,
    tasks: Annotated[
        list[str] | None,
        Opt("--tasks", "-t", help="Tasks (as for run): comma-separated, or the option repeated."),
    ] = None,
    config: Annotated[
        Path | None,
        Opt(
            "--config",
            help="YAML with 'models:' (specs or {model, name, base_url, backend_opt}), 'tasks:' and "
            "optionally 'models_at_once:'.",
        ),
    ] = None,
    output: Annotated[
        Path, Opt("--output", "-o", help="Sweep directory: one run directory per model.")
    ] = Path("runs/sweep"),
    models_at_once: Annotated[
        int | None,
        Opt(
            "--models-at-once",
            help="Ray: models running at once, each with its share of the workers (default: as many as the "
            "cluster has worker slots, up to all; YAML key models_at_once).",
        ),
    ] = None,
    scheme: Annotated[
        str | None, Opt(help="Also build this registered leaderboard scheme (mera, megabench...).")
    ] = None,
    option: Annotated[list[str] | None, Opt(help="Scheme option KEY=VALUE (repeatable).")] = None,
    json_out: Annotated[bool, Opt("--json", help="Print the board as JSON.")] = False,
    **options: Any,
) -> None:
    """Evaluate every model on every task (resumable as a whole) and write leaderboard.json.

    On Ray several models run at once, each in its own run directory with its share of the workers;
    a model that fails (a dead endpoint) is marked failed in leaderboard.json, the others finish, and
    the command exits non-zero naming it. Running the same command again resumes everything.
    With --judge, every model is judged by the same judge; on Ray a local judge's replicas are
    started once for the whole sweep and shared by the models running at once. The options are those
    of `omnieval run` (but --dry-run).
    """
    from omnieval import api

    with friendly_errors():
        keywords = cli_values(options)
        checked_options(keywords)  # a bad value: one line naming its flag
        from omnieval.cli.ray_logs import ray_output_to_file

        quiet_ray = (
            ray_output_to_file(output) if keywords.get("executor") == "ray" else contextlib.nullcontext()
        )
        with quiet_ray:  # Ray's own lines go to OUTPUT/ray.log, not the terminal
            board = api.sweep(
                config=config,
                models=comma_joined(models) or None,
                tasks=comma_joined(tasks) or None,
                output=output,
                models_at_once=models_at_once,
                scheme=scheme,
                scheme_options=parse_kv(option, option="--option"),
                **keywords,
            )
    if json_out or not keywords.get("quiet"):  # --quiet: nothing but warnings and errors (--json asks)
        _print_boards(board, output=output, json_out=json_out)
    if board.failed:
        names = ", ".join(f"{name} ({error})" for name, error in board.failed.items())
        fail(
            f"sweep: {len(board.failed)} of {len(board.runs)} models failed: {names}. The others are in "
            "leaderboard.json; "
            "run the same command again to resume (finished models are not recomputed)"
        )


def _print_boards(board: LeaderboardFile, *, output: Path, json_out: bool) -> None:
    """The sweep's board (and any scheme's), or leaderboard.json as JSON."""
    from omnieval.cli.listing import print_board

    document = board.model_dump(mode="json")
    if json_out:
        print_json(document)
        return
    print_board({k: v for k, v in document.items() if k not in ("runs", "failed", "schemes")})
    for sub in document["schemes"].values():
        print_board(sub)
    print(f"leaderboard: {output / 'leaderboard.json'}")
