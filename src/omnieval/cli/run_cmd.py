"""``omnieval run``."""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from omnieval.cli._common import comma_joined, fail, friendly_errors, generation_overrides, parse_kv
from omnieval.cli.judge_opts import JudgeOpts, judge_from_options, with_judge_options

if TYPE_CHECKING:
    from collections.abc import Mapping

    from omnieval.executors import ExecutorOptions
    from omnieval.types.files import ResultsFile
    from omnieval.types.results import HookReport

__all__ = ["run_command"]

Opt = typer.Option


@with_judge_options
def run_command(
    tasks: Annotated[
        list[str],
        Opt(
            "--tasks",
            "-t",
            help="Task names, groups, YAML paths or FORMAT:PATH: comma-separated, or the option repeated.",
        ),
    ],
    model: Annotated[
        str,
        Opt(
            "--model",
            "-m",
            help="PROVIDER/NAME, e.g. openai/gpt-4o, hf/./model, replay/answers.jsonl, baseline/oracle.",
        ),
    ],
    output: Annotated[Path, Opt("--output", "-o", help="Run directory; running again resumes it.")] = Path(
        "runs/latest"
    ),
    base_url: Annotated[str | None, Opt(help="Base URL of an OpenAI-compatible server.")] = None,
    api_key: Annotated[str | None, Opt(help="API key (default: the provider's usual env variable).")] = None,
    concurrency: Annotated[int, Opt(help="Requests in flight at once (halves on HTTP 429).")] = 32,
    timeout: Annotated[float, Opt(help="Per-request timeout in seconds.")] = 120.0,
    limit: Annotated[int | None, Opt(min=1, help="At most N samples per task (N ≥ 1).")] = None,
    sample_ids: Annotated[
        list[str] | None, Opt(help="Sample ids to run: comma-separated, or the option repeated.")
    ] = None,
    temperature: Annotated[float | None, Opt(help="Override every task's temperature.")] = None,
    max_tokens: Annotated[int | None, Opt(help="Override every task's max new tokens.")] = None,
    top_p: Annotated[float | None, Opt()] = None,
    stop: Annotated[list[str] | None, Opt(help="Stop sequence (repeatable).")] = None,
    gen_seed: Annotated[int | None, Opt(help="Sampling seed sent to the backend.")] = None,
    seed: Annotated[int, Opt(help="Seed for prompt-variant assignment and few-shot choice.")] = 1234,
    blind: Annotated[
        bool, Opt(help="Remove media from prompts (text-only control); marked in results.")
    ] = False,
    strict_metrics: Annotated[
        bool, Opt(help="Fixed metrics instead of benchmark-parity quirks (own metric version).")
    ] = False,
    device: Annotated[str | None, Opt(help="Device for local backends (cpu, cuda, ...).")] = None,
    dtype: Annotated[str | None, Opt(help="dtype for local backends.")] = None,
    batch_size: Annotated[int, Opt(help="Batch size for local backends.")] = 8,
    backend_opt: Annotated[list[str] | None, Opt(help="Backend-specific KEY=VALUE (repeatable).")] = None,
    media_opt: Annotated[
        list[str] | None, Opt(help="Media policy override KEY=VALUE, e.g. image_max_side=768.")
    ] = None,
    cache: Annotated[bool, Opt(help="Use the response cache.")] = True,
    cache_path: Annotated[Path | None, Opt(help="Response cache file (share one across runs).")] = None,
    retry_errors: Annotated[bool, Opt(help="On resume, retry samples that ended in error.")] = True,
    max_attempts: Annotated[int, Opt(help="Attempts per request on retryable errors.")] = 6,
    max_error_rate: Annotated[
        float | None,
        Opt(
            help="Exit with code 3 when the share of samples in error exceeds R. Default: exit 3 only when "
            "every sample ended in error (rate 1.0)."
        ),
    ] = None,
    breaker_threshold: Annotated[
        int,
        Opt(
            help="Stop the run (exit 2, unfinished samples resumable) after N identical non-transient "
            "failures in a row: connection refused, DNS/TLS error, HTTP 401/403/404, unknown model. 0 "
            "disables."
        ),
    ] = 4,
    quiet: Annotated[bool, Opt("--quiet", "-q", help="No progress bars; one line per task.")] = False,
    dry_run: Annotated[
        bool,
        Opt(
            help="Print the requests as the runner renders them, then totals (requests, prompt characters "
            "and estimated tokens, images, audio seconds, video frames); call no model."
        ),
    ] = False,
    executor: Annotated[
        str, Opt(help="Where samples run: local (this process) or ray (shards on a Ray cluster).")
    ] = "local",
    ray_address: Annotated[
        str | None, Opt(help="Ray cluster address (default: start a local Ray with this machine's cores).")
    ] = None,
    ray_runtime_env: Annotated[
        str | None,
        Opt(
            help='Ray runtime_env for the workers: JSON text or a JSON/YAML file, e.g. \'{"pip": '
            '["omnieval[ray]"]}\' (see docs/executors.md).'
        ),
    ] = None,
    workers: Annotated[
        int | None,
        Opt(
            help="Ray workers / model replicas (default: API models one per 64 of --concurrency, at most the "
            "cluster's CPUs; local models one per GPU)."
        ),
    ] = None,
    gpus_per_replica: Annotated[float | None, Opt(help="GPUs per local-model replica on Ray.")] = None,
    shard_size: Annotated[
        int | None, Opt(help="Samples per Ray shard (default: about two shards per worker per task).")
    ] = None,
    judge_replicas: Annotated[
        int, Opt(help="Ray actors of a local judge (hf/, vllm/), each loading it once.")
    ] = 1,
    judge_gpus_per_replica: Annotated[
        float | None,
        Opt(help="GPUs per local-judge replica on Ray (default: 1 on a cluster with GPUs, else 0)."),
    ] = None,
    log_to: Annotated[
        list[str] | None,
        Opt(
            "--log-to",
            help="Send the run to trackers (run hooks): wandb, mlflow; comma-separated or repeated.",
        ),
    ] = None,
    repeats: Annotated[
        int | None,
        Opt(
            min=1,
            help="Answers per sample, each with its own generation seed (overrides a task's repeats:); adds "
            "pass@k, maj@K, avg@K.",
        ),
    ] = None,
    cost_limit: Annotated[
        float | None,
        Opt(
            min=0.0,
            help="Stop before a request could take this run's spending (model and judges, all invocations on "
            "this --output) past USD; exit code 4, resumable. Every model needs a price.",
        ),
    ] = None,
    prices: Annotated[
        Path | None,
        Opt(help="Price file (JSON or YAML, USD per 1M tokens) overriding or adding to the built-in table."),
    ] = None,
    reasoning_effort: Annotated[
        str | None,
        Opt(
            help="low, medium or high: mapped per provider (openai/: reasoning_effort; hf/, vllm/: "
            "enable_thinking in the chat template); the manifest records the mapping."
        ),
    ] = None,
    reasoning_budget: Annotated[
        int | None,
        Opt(
            min=1,
            help=(
                "Thinking tokens allowed where the provider takes a budget (openai/: read off as an effort)."
            ),
        ),
    ] = None,
    batch: Annotated[
        bool,
        Opt(
            "--batch",
            help="Send requests through the provider's batch API (openai/: Batch API); batch ids are kept in "
            "OUTPUT/batches.jsonl so a resumed run polls them instead of resubmitting.",
        ),
    ] = False,
    batch_size_requests: Annotated[int, Opt(min=1, help="Requests per provider batch (--batch).")] = 1000,
    batch_poll: Annotated[float, Opt(help="Seconds between polls of a provider batch (--batch).")] = 10.0,
    batch_pending: Annotated[
        int, Opt(min=1, help="Requests waiting on provider batches at once (--batch); bounds memory.")
    ] = 5000,
    judge: JudgeOpts.judge = None,
    **judge_options: Any,
) -> None:
    """Run (or resume) an evaluation and write samples.jsonl, results.json, report.html."""
    from omnieval.backends import BackendOptions, check_backend_options
    from omnieval.runner import RetryPolicy, RunConfig

    with friendly_errors():
        config = RunConfig(
            tasks=(comma_joined(tasks),),
            model=model,
            output=output,
            backend=BackendOptions(
                base_url=base_url,
                api_key=api_key,
                concurrency=concurrency,
                timeout_s=timeout,
                device=device,
                dtype=dtype,
                batch_size=batch_size,
                extra=parse_kv(backend_opt, option="--backend-opt"),
                media=parse_kv(media_opt, option="--media-opt"),
            ),
            limit=limit,
            sample_ids=tuple(s.strip() for s in comma_joined(sample_ids).split(",")) if sample_ids else None,
            seed=seed,
            generation=generation_overrides(
                temperature=temperature, max_tokens=max_tokens, top_p=top_p, stop=stop, seed=gen_seed
            ),
            blind=blind,
            strict_metrics=strict_metrics,
            use_cache=cache,
            cache_path=cache_path,
            retry=RetryPolicy(max_attempts=max_attempts),
            retry_errors=retry_errors,
            max_error_rate=max_error_rate,
            breaker_threshold=breaker_threshold,
            quiet=quiet,
            dry_run=dry_run,
            judge=judge_from_options(judge, judge_options),
            log_to=tuple(n.strip() for n in comma_joined(log_to).split(",") if n.strip()) if log_to else (),
            repeats=repeats,
            cost_limit=cost_limit,
            prices=prices,
            reasoning_effort=_effort(reasoning_effort),
            reasoning_budget=reasoning_budget,
            batch=batch,
            batch_size=batch_size_requests,
            batch_poll_s=batch_poll,
            batch_pending=batch_pending,
        )
        if cost_limit is not None and executor != "local":
            fail("--cost-limit needs --executor local (shards on Ray would each count their own spending)")
        check_backend_options(config.model, config.backend)  # a misspelt option fails before any work
        if dry_run:
            from omnieval.cli.dry_run import print_dry_run

            print_dry_run(config)
            return
        _run(
            config,
            executor_options(
                executor,
                ray_address=ray_address,
                runtime_env=runtime_env_option(ray_runtime_env),
                workers=workers,
                gpus_per_replica=gpus_per_replica,
                shard_size=shard_size,
                judge_replicas=judge_replicas,
                judge_gpus_per_replica=judge_gpus_per_replica,
            ),
        )


def runtime_env_option(value: str | None) -> dict[str, object] | None:
    """``--ray-runtime-env``: JSON text (starting with ``{``) or a JSON/YAML file holding a mapping."""
    if value is None:
        return None
    import yaml

    where = "--ray-runtime-env"
    text = value
    if not value.lstrip().startswith("{"):
        path = Path(value)
        if not path.is_file():
            fail(f"{where}: {value!r} is neither JSON text nor a file")
        text, where = path.read_text(encoding="utf-8"), f"--ray-runtime-env {value}"
    try:
        env = yaml.safe_load(text)  # YAML reads JSON too
    except yaml.YAMLError as exc:
        fail(f"{where}: not JSON/YAML: {exc}")
    if not isinstance(env, dict):
        fail(f'{where}: expected a mapping such as {{"pip": [...]}}, got {type(env).__name__}')
    return env


def _effort(value: str | None) -> Any:
    """``--reasoning-effort``, checked (one line naming the allowed values)."""
    if value not in (None, "low", "medium", "high"):
        fail(f"--reasoning-effort must be low, medium or high, got {value!r}")
    return value


def executor_options(kind: str, **fields: object) -> ExecutorOptions:
    """``--executor`` and its options, checked (an unknown executor is a one-line error)."""
    from omnieval.executors import ExecutorOptions

    if kind not in ("local", "ray"):
        fail(f"--executor must be local or ray, got {kind!r}")
    return ExecutorOptions(kind=kind, **fields)  # type: ignore[arg-type]


def _run(config: object, executor: object = None) -> None:
    from omnieval.api import evaluate

    if not gc.isenabled():  # `omnieval run` itself (cli.app.main) set up with collection off
        _collect_for_a_run()
    started = time.perf_counter()
    outcome, results = evaluate(config, executor=executor, warm_up=True)  # type: ignore[arg-type]
    # imported after the run (rich ≈ 0.05 s, the result models): the api's warm-up thread has loaded
    # them while the model worked, and the first request did not wait for them
    from rich.console import Console

    from omnieval.library import error_rate_failure
    from omnieval.reports import results_table

    console = Console(stderr=False, width=120)
    console.print(results_table(results))
    console.print(
        f"run wall time {time.perf_counter() - started:.1f}s (tasks run concurrently; per-task busy times "
        "overlap)"
    )
    console.print(f"report: {outcome.output / 'report.html'}")
    total = sum(results.states.values())
    _warn_on_errors(results)
    warn_on_hook_failures(results.hooks)
    warn_unknown_sample_ids(outcome.unknown_sample_ids)
    failure = error_rate_failure(results, max_error_rate=config.max_error_rate)  # type: ignore[attr-defined]
    if failure is not None:
        print(f"omnieval: {failure}", file=sys.stderr)
        raise typer.Exit(3)
    if total == 0 and not any(outcome.states.values()):
        fail("no samples were selected (check --limit / --sample-ids)", code=1)


GC_THRESHOLDS = (20_000, 10, 10)
"""Young objects collected every 20,000 allocations (Python's default: 700), the older generations every
10 collections of the one below."""


def _collect_for_a_run() -> None:
    """The garbage collector turned back on, tuned for a process that keeps what it imported until it
    exits: the objects made during the set-up (modules, classes, models, the configuration) are frozen
    out of every later collection, and young objects are collected less often. Collections went over
    the set-up's objects again and again: ≈ 70 ms of a 2,000-request run's CPU, ≈ 20 ms after
    (docs/performance.md). Garbage cycles left by the set-up stay until exit (one-off, a few kB)."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    gc.enable()


def warn_on_hook_failures(report: Mapping[str, HookReport | int]) -> None:
    """A tracker that failed never failed the run; one line per hook says how often and the first error."""
    from omnieval.types.results import HookReport

    for name, tally in report.items():
        if isinstance(tally, HookReport) and tally.failures:
            print(
                f"omnieval: hook {name} failed {tally.failures} time(s) (first: {tally.first_error}); "
                "the results above are complete",
                file=sys.stderr,
            )
    if report.get("dropped_events"):
        print(f"omnieval: {report['dropped_events']} hook event(s) dropped (hooks too slow)", file=sys.stderr)


def warn_unknown_sample_ids(unknown: tuple[str, ...] | list[str]) -> None:
    """A mistyped ``--sample-ids`` entry would otherwise only make the run smaller."""
    if unknown:
        names = ", ".join(repr(i) for i in unknown[:20]) + (
            f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
        )
        print(
            f"omnieval: warning: --sample-ids: no task has sample id(s) {names}; they were not run",
            file=sys.stderr,
        )


def _warn_on_errors(results: ResultsFile) -> None:
    """One line per task with any sample in error (count and top causes) or left unscored (no gold answer)."""
    from omnieval.reports import error_warning, unscored_warning

    for name, block in results.tasks.items():
        for line in (error_warning(name, block), unscored_warning(name, block)):
            if line:
                print(f"omnieval: {line}", file=sys.stderr)
