"""``omnieval sweep``: models × tasks, one run directory per model, one leaderboard over them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.cli._common import comma_joined, fail, friendly_errors, parse_kv, print_json
from omnieval.cli.option_params import checked_options, cli_values, option_parameters, with_options

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
    from omnieval.executors.sweep import load_sweep
    from omnieval.library import run_sweep
    from omnieval.options.build import executor_options, sweep_configs

    with friendly_errors():
        built = checked_options(cli_values(options))
        spec = load_sweep(
            config,
            models=comma_joined(models) or None,
            tasks=comma_joined(tasks) or None,
            models_at_once=models_at_once,
        )
        runs = run_sweep(
            sweep_configs(built, spec, output=output),
            executor_options(built),
            models_at_once=spec.models_at_once,
            quiet=built.write.quiet,
        )
        _write_boards(
            output, runs, scheme=scheme, options=parse_kv(option, option="--option"), json_out=json_out
        )
    failed = [r for r in runs if r.status != "finished"]
    if failed:
        names = ", ".join(f"{r.name} ({r.error})" for r in failed)
        fail(
            f"sweep: {len(failed)} of {len(runs)} models failed: {names}. The others are in "
            "leaderboard.json; "
            "run the same command again to resume (finished models are not recomputed)"
        )


def _write_boards(
    output: Path, runs: list[Any], *, scheme: str | None, options: dict[str, Any], json_out: bool
) -> None:
    """leaderboard.json: a row per model (failed ones too, with their status), their run directories,
    the failures' errors and any scheme's board over the finished models."""
    from omnieval.cli.listing import print_board
    from omnieval.library import write_leaderboard

    document = write_leaderboard(output, runs, scheme=scheme, options=options)
    if json_out:
        print_json(document)
        return
    print_board({k: v for k, v in document.items() if k not in ("runs", "failed", "schemes")})
    for sub in document["schemes"].values():
        print_board(sub)
    print(f"leaderboard: {output / 'leaderboard.json'}")
