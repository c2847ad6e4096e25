"""``omnieval sweep``: models × tasks, one run directory per model, one leaderboard over them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.cli._common import friendly_errors, parse_kv, print_json
from omnieval.cli.run_cmd import executor_options

__all__ = ["sweep_command"]

Opt = typer.Option


def sweep_command(
    models: Annotated[str | None, Opt("--models", help="Comma-separated PROVIDER/NAME models.")] = None,
    tasks: Annotated[str | None, Opt("--tasks", "-t", help="Comma-separated tasks (as for run).")] = None,
    config: Annotated[Path | None, Opt("--config", help="YAML with 'models:' (specs or {model, name, base_url, backend_opt}) and 'tasks:'.")] = None,
    output: Annotated[Path, Opt("--output", "-o", help="Sweep directory: one run directory per model.")] = Path("runs/sweep"),
    base_url: Annotated[str | None, Opt(help="Base URL for API models that do not set their own.")] = None,
    api_key: Annotated[str | None, Opt(help="API key (default: the provider's usual env variable).")] = None,
    concurrency: Annotated[int, Opt(help="Requests in flight at once per endpoint.")] = 32,
    timeout: Annotated[float, Opt(help="Per-request timeout in seconds.")] = 120.0,
    limit: Annotated[int | None, Opt(help="At most N samples per task.")] = None,
    seed: Annotated[int, Opt(help="Seed for prompt-variant assignment and few-shot choice.")] = 1234,
    executor: Annotated[str, Opt(help="local or ray.")] = "local",
    ray_address: Annotated[str | None, Opt(help="Ray cluster address (default: a local Ray).")] = None,
    workers: Annotated[int | None, Opt(help="Ray workers / model replicas per model.")] = None,
    gpus_per_replica: Annotated[float | None, Opt(help="GPUs per local-model replica on Ray.")] = None,
    shard_size: Annotated[int | None, Opt(help="Samples per Ray shard.")] = None,
    scheme: Annotated[str | None, Opt(help="Also build this registered leaderboard scheme (mera, megabench...).")] = None,
    option: Annotated[list[str] | None, Opt(help="Scheme option KEY=VALUE (repeatable).")] = None,
    quiet: Annotated[bool, Opt("--quiet", "-q", help="No progress bars.")] = False,
    json_out: Annotated[bool, Opt("--json", help="Print the board as JSON.")] = False,
) -> None:
    """Evaluate every model on every task (resumable as a whole) and write leaderboard.json."""
    from omnieval.backends import BackendOptions
    from omnieval.executors.sweep import load_sweep, run_dir_name
    from omnieval.runner import RunConfig

    how = executor_options(executor, ray_address=ray_address, workers=workers,
                           gpus_per_replica=gpus_per_replica, shard_size=shard_size)  # fmt: skip
    with friendly_errors():
        spec = load_sweep(config, models=models, tasks=tasks)
        configs = [
            (run_dir_name(m), RunConfig(
                tasks=spec.tasks, model=m.model, output=output / run_dir_name(m), limit=limit, seed=seed, quiet=quiet,
                backend=BackendOptions(base_url=m.base_url or base_url, api_key=api_key, concurrency=concurrency,
                                       timeout_s=timeout, extra=m.backend_opt),
            ))
            for m in spec.models
        ]  # fmt: skip
        runs = _run_all(configs, how)
        _write_boards(output, runs, scheme=scheme, options=parse_kv(option, option="--option"), json_out=json_out)


def _run_all(configs: list[tuple[str, Any]], how: Any) -> list[tuple[str, dict[str, Any]]]:
    """One model after the other; on Ray each model's shards spread over the whole cluster."""
    from omnieval.api import evaluate

    started = False
    if how.kind == "ray":
        from omnieval.executors.ray_executor import connect

        started = connect(how)
    try:
        out = []
        for name, config in configs:
            print(f"[omnieval] sweep: {name} ({config.model}) → {config.output}", file=sys.stderr)
            _, results = evaluate(config, executor=how)
            out.append((name, {**results, "run_dir": str(config.output)}))
        return out
    finally:
        if started:
            import ray

            ray.shutdown()


def _write_boards(output: Path, runs: list[tuple[str, dict[str, Any]]], *, scheme: str | None, options: dict[str, Any], json_out: bool) -> None:
    from omnieval.cli.listing import print_board
    from omnieval.executors.sweep import board
    from omnieval.store import write_json

    table = board(runs)
    extra = {}
    if scheme is not None:
        from omnieval.aggregate import schemes

        extra = {scheme: schemes.get(scheme)([r for _, r in runs], **options)}
    document = {**table, "runs": {name: r["run_dir"] for name, r in runs}, "schemes": extra}
    write_json(output / "leaderboard.json", document)
    if json_out:
        print_json(document)
        return
    print_board(table)
    for sub in extra.values():
        print_board(sub)
    print(f"leaderboard: {output / 'leaderboard.json'}")
