"""The options of a run, split by concern: what to run, how to run it, its judge, what to write.

Each field is one option under one name: the keyword of :func:`omnieval.evaluate` and, kebab-cased, the
flag of ``omnieval run`` (``max_tokens`` / ``--max-tokens``), with one default and one validation. The
CLI's panels follow the ``panel`` of each field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import field_validator

from omnieval.options.fields import comma_list, key_values, option, runtime_env
from omnieval.runner.config import Shard
from omnieval.types._base import Frozen

__all__ = [
    "GROUPS",
    "PANELS",
    "HowToRun",
    "JudgeOptions",
    "RunTarget",
    "WhatToRun",
    "WhatToWrite",
]

RUN = "What to run"
GENERATION = "Generation"
BACKEND = "Model and backend"
HOW = "How to run"
BATCH_API = "Provider batch API"
RAY = "Ray executor"
JUDGES = "Judges"
WRITE = "What to write"
PANELS = (RUN, GENERATION, BACKEND, HOW, BATCH_API, RAY, JUDGES, WRITE)
"""The CLI's help panels, in the order ``--help`` shows them."""


class RunTarget(Frozen):
    """The tasks, the model and the run directory: arguments of their own in the keyword API (the model
    may be an object there, and ``output=None`` runs in memory), options on the command line."""

    tasks: tuple[str, ...] = option(
        help="Tasks: names, groups, YAML paths or FORMAT:PATH; comma-separated or repeated.",
        panel=RUN,
        flags=("-t",),
    )
    model: str = option(
        help="PROVIDER/NAME, e.g. openai/gpt-4o, hf/./model, replay/FILE, baseline/oracle.",
        panel=RUN,
        flags=("-m",),
    )
    output: Path = option(
        Path("runs/latest"), help="Run directory; running again resumes it.", panel=WRITE, flags=("-o",)
    )


class WhatToRun(Frozen):
    """Which samples, and how the model is asked: the settings that change what an answer means."""

    sample_ids: tuple[str, ...] | None = option(
        None, help="Sample ids to run: comma-separated, or the option repeated.", panel=RUN
    )
    limit: int | None = option(None, help="At most N samples per task.", panel=RUN, ge=1)
    shard: str | None = option(
        None,
        help="Run only share I of N (0-based, I/N) of the samples, chosen by a hash of task and sample id; "
        "`omnieval merge` joins the shards' folders.",
        panel=RUN,
    )
    seed: int = option(1234, help="Seed of prompt-variant assignment and few-shot choice.", panel=RUN)
    repeats: int | None = option(
        None,
        help="Answers per sample, each its own seed (pass@k, maj@K); overrides the task's.",
        panel=RUN,
        ge=1,
    )
    blind: bool = option(False, help="Remove media from prompts (text-only control).", panel=RUN)
    strict_metrics: bool = option(
        False, help="Fixed metrics instead of benchmark-parity quirks.", panel=RUN, rare=True
    )
    media_opt: dict[str, Any] = option(
        {},
        help="Media policy override KEY=VALUE, e.g. image_max_side=768 (repeatable).",
        panel=RUN,
        rare=True,
    )
    temperature: float | None = option(
        None, help="Override every task's temperature.", panel=GENERATION, ge=0
    )
    max_tokens: int | None = option(
        None, help="Override every task's max new tokens.", panel=GENERATION, ge=1
    )
    top_p: float | None = option(None, help="Override every task's top-p.", panel=GENERATION, gt=0, le=1)
    stop: tuple[str, ...] | None = option(
        None, help="Stop sequence (repeatable).", panel=GENERATION, rare=True
    )
    gen_seed: int | None = option(
        None, help="Sampling seed sent to the backend.", panel=GENERATION, rare=True
    )
    reasoning_effort: Literal["low", "medium", "high"] | None = option(
        None, help="low, medium or high: mapped per provider (recorded in the manifest).", panel=GENERATION
    )
    reasoning_budget: int | None = option(
        None, help="Thinking tokens where the provider takes a budget.", panel=GENERATION, ge=1
    )

    _lists = field_validator("sample_ids", mode="before")(comma_list)
    _pairs = field_validator("media_opt", mode="before")(key_values)

    @field_validator("shard", mode="before")
    @classmethod
    def _shard(cls, value: Any) -> Any:
        """``"I/N"`` checked (``3/3`` does not exist) and written the one way the manifest records it."""
        if value is None or isinstance(value, Shard):
            return None if value is None else str(value)
        fields = Shard.parsed_fields(str(value))
        return f"{fields['index']}/{fields['count']}"

    @field_validator("stop", mode="before")
    @classmethod
    def _stop(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value


class HowToRun(Frozen):
    """The backend, the executor, retries, caching and cost: settings that never change what a finished
    sample means (a run may resume under others)."""

    base_url: str | None = option(None, help="Base URL of an OpenAI-compatible server.", panel=BACKEND)
    api_key: str | None = option(
        None, help="API key (default: the provider's usual variable).", panel=BACKEND
    )
    concurrency: int = option(
        32, help="Requests in flight at once (halves on HTTP 429).", panel=BACKEND, ge=1
    )
    timeout: float = option(120.0, help="Per-request timeout in seconds.", panel=BACKEND, gt=0)
    batch_size: int = option(8, help="Requests per batch of a local model (hf/, vllm/).", panel=BACKEND, ge=1)
    device: str | None = option(None, help="Device of a local model (cpu, cuda, ...).", panel=BACKEND)
    dtype: str | None = option(None, help="dtype of a local model.", panel=BACKEND, rare=True)
    backend_opt: dict[str, Any] = option(
        {},
        help="Backend-specific KEY=VALUE (repeatable), e.g. endpoint=completions for openai/.",
        panel=BACKEND,
    )
    stream: bool = option(
        False,
        help="Stream answers and time them: time to first token and tokens/s, p50/p95 per task (openai/).",
        panel=BACKEND,
    )
    cache: bool = option(True, help="Use the response cache.", panel=HOW, negatable=True)
    cache_path: Path | None = option(None, help="Response cache file (share one across runs).", panel=HOW)
    judge_cache_path: Path | None = option(
        None,
        help="The judges' response cache file (default: in OUTPUT).",
        panel=HOW,
        rare=True,
    )
    retry_errors: bool = option(
        True, help="On resume, retry samples that ended in error.", panel=HOW, negatable=True, rare=True
    )
    max_attempts: int = option(6, help="Attempts per request on retryable errors.", panel=HOW, ge=1)
    breaker_threshold: int = option(
        4,  # backends.breaker.DEFAULT_THRESHOLD (a test keeps them equal; importing it loads the backends)
        help="Stop (exit 2, resumable) after N identical non-transient failures in a row; 0: never.",
        panel=HOW,
        ge=0,
        rare=True,
    )
    cost_limit: float | None = option(
        None,
        help="Stop (exit 4, resumable) before the run's spending could pass USD; needs prices.",
        panel=HOW,
        gt=0,
    )
    prices: Path | None = option(
        None, help="Price file (JSON/YAML, USD per 1M tokens) added to the built-in table.", panel=HOW
    )
    batch_api: bool = option(
        False,
        help="Send requests through the provider's batch API (openai/); resumable.",
        panel=BATCH_API,
        flags=("--batch",),
    )
    batch_api_group_size: int = option(
        1000,
        help="Requests per provider batch (--batch-api).",
        panel=BATCH_API,
        flags=("--batch-size-requests",),
        rare=True,
        ge=1,
    )
    batch_api_poll: float = option(
        10.0,
        help="Seconds between polls of a provider batch.",
        panel=BATCH_API,
        flags=("--batch-poll",),
        rare=True,
        gt=0,
    )
    batch_api_pending: int = option(
        5000,
        help="Requests waiting on provider batches at once (bounds memory).",
        panel=BATCH_API,
        flags=("--batch-pending",),
        rare=True,
        ge=1,
    )
    executor: Literal["local", "ray"] = option(
        "local", help="local (this process) or ray (shards on a Ray cluster).", panel=RAY
    )
    ray_address: str | None = option(None, help="Ray cluster address (default: a local Ray).", panel=RAY)
    ray_runtime_env: dict[str, Any] | None = option(
        None, help="Ray runtime_env of the workers: JSON text or a JSON/YAML file.", panel=RAY, text=True
    )
    workers: int | None = option(
        None, help="Ray workers / model replicas (default: from --concurrency or the GPUs).", panel=RAY, ge=1
    )
    gpus_per_replica: float | None = option(None, help="GPUs per local-model replica.", panel=RAY, ge=0)
    shard_size: int | None = option(
        None,
        help="Samples per Ray work unit, not --shard (default: about two per worker per task).",
        panel=RAY,
        ge=1,
    )
    cpus_per_worker: float = option(1.0, help="CPUs each Ray worker requests.", panel=RAY, gt=0, rare=True)
    max_shard_attempts: int = option(
        3, help="Runs of a shard whose worker was lost, in all.", panel=RAY, ge=1, rare=True
    )
    local_cpus: int | None = option(
        None, help="CPUs of a Ray started here (default: the machine's cores).", panel=RAY, ge=1, rare=True
    )
    driver_seat: bool = option(
        True,
        help="Run an API model's first shards in the driver while the Ray workers start.",
        panel=RAY,
        negatable=True,
        rare=True,
    )

    _pairs = field_validator("backend_opt", mode="before")(key_values)
    _env = field_validator("ray_runtime_env", mode="before")(runtime_env)


class JudgeOptions(Frozen):
    """The run's judge (for the tasks that declare one) and its own connection and decoding options."""

    judge: str | None = option(
        None, help="Judge PROVIDER/NAME (openai/..., hf/PATH, vllm/..., replay/FILE).", panel=JUDGES
    )
    judge_base_url: str | None = option(None, help="Judge: base URL of its server.", panel=JUDGES)
    judge_api_key: str | None = option(None, help="Judge: API key.", panel=JUDGES)
    judge_concurrency: int = option(32, help="Judge: requests in flight (its own pool).", panel=JUDGES, ge=1)
    judge_timeout: float = option(120.0, help="Judge: per-request timeout in seconds.", panel=JUDGES, gt=0)
    judge_max_tokens: int | None = option(None, help="Judge: max new tokens.", panel=JUDGES, ge=1)
    judge_temperature: float | None = option(None, help="Judge: sampling temperature.", panel=JUDGES, ge=0)
    judge_top_p: float | None = option(None, help="Judge: top-p.", panel=JUDGES, gt=0, le=1, rare=True)
    judge_stop: tuple[str, ...] | None = option(
        None, help="Judge: stop sequence (repeatable).", panel=JUDGES, rare=True
    )
    judge_gen_seed: int | None = option(None, help="Judge: sampling seed.", panel=JUDGES, rare=True)
    judge_device: str | None = option(None, help="Judge: device of a local judge.", panel=JUDGES, rare=True)
    judge_dtype: str | None = option(None, help="Judge: dtype of a local judge.", panel=JUDGES, rare=True)
    judge_batch_size: int = option(
        8, help="Judge: requests per batch of a local judge.", panel=JUDGES, ge=1, rare=True
    )
    judge_retries: int | None = option(
        None, help="Judge: retries of an unreadable verdict.", panel=JUDGES, ge=0, rare=True
    )
    judge_backend_opt: dict[str, Any] = option(
        {}, help="Judge: backend-specific KEY=VALUE (repeatable).", panel=JUDGES, rare=True
    )
    judge_replicas: int = option(
        1, help="Ray: actors of a local judge, each loading it once.", panel=JUDGES, ge=1
    )
    judge_gpus_per_replica: float | None = option(
        None, help="Ray: GPUs per local-judge replica.", panel=JUDGES, ge=0, rare=True
    )

    _pairs = field_validator("judge_backend_opt", mode="before")(key_values)

    @field_validator("judge_stop", mode="before")
    @classmethod
    def _stop(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value


class WhatToWrite(Frozen):
    """What the run prints and reports, and when it counts as failed."""

    quiet: bool = option(
        False,
        help="Print nothing but warnings and errors (no progress, no table).",
        panel=WRITE,
        flags=("-q",),
    )
    log_to: tuple[str, ...] = option(
        (), help="Trackers that receive the run (wandb, mlflow); comma-separated or repeated.", panel=WRITE
    )
    max_error_rate: float | None = option(
        None,
        help="Exit 3 above this share of samples in error. Default: exit 3 only when every sample ended in "
        "error (rate 1.0).",
        panel=WRITE,
        ge=0,
        le=1,
    )
    dry_run: bool = option(
        False, help="Print the requests and their totals (tokens, media, cost); call no model.", panel=WRITE
    )

    _lists = field_validator("log_to", mode="before")(comma_list)


GROUPS: tuple[type[Frozen], ...] = (WhatToRun, HowToRun, JudgeOptions, WhatToWrite)
"""The keyword option models; :class:`RunTarget` holds the keywords the API takes as its own arguments."""
