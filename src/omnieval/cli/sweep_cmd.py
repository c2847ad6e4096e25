"""``omnieval sweep``: models × tasks, one run directory per model, one leaderboard over them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from omnieval.cli._common import comma_joined, fail, friendly_errors, parse_kv, print_json
from omnieval.cli.judge_opts import JudgeOpts, judge_from_options, with_judge_options
from omnieval.cli.run_cmd import executor_options, runtime_env_option

if TYPE_CHECKING:
    from omnieval.types.files import LeaderboardFile

__all__ = ["sweep_command"]

Opt = typer.Option


@with_judge_options
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
    base_url: Annotated[str | None, Opt(help="Base URL for API models that do not set their own.")] = None,
    api_key: Annotated[str | None, Opt(help="API key (default: the provider's usual env variable).")] = None,
    concurrency: Annotated[int, Opt(help="Requests in flight at once per endpoint.")] = 32,
    timeout: Annotated[float, Opt(help="Per-request timeout in seconds.")] = 120.0,
    limit: Annotated[int | None, Opt(min=1, help="At most N samples per task (N ≥ 1).")] = None,
    seed: Annotated[int, Opt(help="Seed for prompt-variant assignment and few-shot choice.")] = 1234,
    executor: Annotated[str, Opt(help="local or ray.")] = "local",
    ray_address: Annotated[str | None, Opt(help="Ray cluster address (default: a local Ray).")] = None,
    ray_runtime_env: Annotated[
        str | None,
        Opt(help="Ray runtime_env for the workers: JSON text or a JSON/YAML file (see docs/executors.md)."),
    ] = None,
    workers: Annotated[
        int | None,
        Opt(
            help="Ray workers / model replicas per model (default: the cluster's worker slots split among "
            "the models running at once)."
        ),
    ] = None,
    models_at_once: Annotated[
        int | None,
        Opt(
            "--models-at-once",
            help="Ray: models running at once, each with its share of the workers (default: as many as the "
            "cluster has worker slots, up to all; YAML key models_at_once).",
        ),
    ] = None,
    gpus_per_replica: Annotated[float | None, Opt(help="GPUs per local-model replica on Ray.")] = None,
    shard_size: Annotated[int | None, Opt(help="Samples per Ray shard.")] = None,
    scheme: Annotated[
        str | None, Opt(help="Also build this registered leaderboard scheme (mera, megabench...).")
    ] = None,
    option: Annotated[list[str] | None, Opt(help="Scheme option KEY=VALUE (repeatable).")] = None,
    quiet: Annotated[bool, Opt("--quiet", "-q", help="No progress bars.")] = False,
    json_out: Annotated[bool, Opt("--json", help="Print the board as JSON.")] = False,
    judge_replicas: Annotated[
        int, Opt(help="Ray: actors of a local judge (hf/, vllm/), shared by every model of the sweep.")
    ] = 1,
    judge_gpus_per_replica: Annotated[
        float | None,
        Opt(help="GPUs per local-judge replica on Ray (default: 1 on a cluster with GPUs, else 0)."),
    ] = None,
    judge: JudgeOpts.judge = None,
    **judge_options: Any,
) -> None:
    """Evaluate every model on every task (resumable as a whole) and write leaderboard.json.

    On Ray several models run at once, each in its own run directory with its share of the workers;
    a model that fails (a dead endpoint) is marked failed in leaderboard.json, the others finish, and
    the command exits non-zero naming it. Running the same command again resumes everything.
    With --judge, every model is judged by the same judge; on Ray a local judge's replicas are
    started once for the whole sweep and shared by the models running at once.
    """
    from omnieval import api

    how = executor_options(
        executor,
        ray_address=ray_address,
        runtime_env=runtime_env_option(ray_runtime_env),
        workers=workers,
        gpus_per_replica=gpus_per_replica,
        shard_size=shard_size,
        judge_replicas=judge_replicas,
        judge_gpus_per_replica=judge_gpus_per_replica,
    )
    with friendly_errors():
        board = api.sweep(
            config=config,
            models=comma_joined(models) or None,
            tasks=comma_joined(tasks) or None,
            output=output,
            models_at_once=models_at_once,
            scheme=scheme,
            scheme_options=parse_kv(option, option="--option"),
            executor=how,
            limit=limit,
            seed=seed,
            quiet=quiet,
            judge=judge_from_options(judge, judge_options),
            base_url=base_url,
            api_key=api_key,
            concurrency=concurrency,
            timeout_s=timeout,
        )
    if json_out or not quiet:  # --quiet: nothing but warnings and errors (--json asks for the board)
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
