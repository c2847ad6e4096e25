"""The run configuration: one typed object instead of kwarg sprawl."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from omnieval.backends import BackendOptions
from omnieval.backends.breaker import DEFAULT_THRESHOLD
from omnieval.types._base import Frozen

__all__ = ["JudgeConfig", "RetryPolicy", "RunConfig", "Shard"]


class RetryPolicy(Frozen):
    """Exponential backoff for retryable backend errors; a server's Retry-After wins."""

    max_attempts: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 60.0


class Shard(Frozen):
    """One of ``count`` shares of a run's samples (``--shard INDEX/COUNT``, 0-based): independently
    started runs (a Slurm array task, a Kubernetes Job index) whose folders ``omnieval merge`` joins."""

    index: int = Field(ge=0)
    count: int = Field(ge=1)

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        """``"I/N"`` as written on the command line."""
        if isinstance(data, str):
            return cls.parsed_fields(data)
        return data

    @model_validator(mode="after")
    def _in_range(self) -> Shard:
        if self.index >= self.count:
            raise ValueError(_out_of_range(self.index, self.count))
        return self

    @staticmethod
    def parsed_fields(text: str) -> dict[str, int]:
        """``{"index": I, "count": N}`` of ``"I/N"``; a ``ValueError`` that says how to write one."""
        index, slash, count = text.strip().partition("/")
        if not slash or not index.strip().isdigit() or not count.strip().isdigit() or int(count) < 1:
            raise ValueError(
                f"{text!r} is not a shard: write INDEX/COUNT, e.g. 0/3 (the index counts from 0)"
            )
        if int(index) >= int(count):
            raise ValueError(_out_of_range(int(index), int(count)))
        return {"index": int(index), "count": int(count)}

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def _out_of_range(index: int, count: int) -> str:
    last = f"{count - 1}/{count}"
    return (
        f"shard {index}/{count} does not exist: the shards of {count} are 0/{count} to {last} (counted "
        "from 0)"
    )


class JudgeConfig(Frozen):
    """The run's judge (``--judge SPEC`` and the ``--judge-*`` options); applies to every task that
    declares a ``judge`` and replaces the task's default judge model."""

    model: str
    """``PROVIDER/NAME`` of the judge, e.g. ``openai/gpt-4o``, ``hf/./judge``, ``replay/judge.jsonl``."""
    backend: BackendOptions = Field(default_factory=BackendOptions)
    """The judge's own connection options: its concurrency pool is separate from the model's."""
    generation: dict[str, Any] = Field(default_factory=dict)
    """Overrides of each task's judge decoding (temperature, max_tokens, top_p, stop, seed)."""
    retries: int | None = None
    """Overrides each task's bound on verdict retries."""


class RunConfig(Frozen):
    """Everything ``omnieval run`` needs; recorded whole in the manifest."""

    tasks: tuple[str, ...]
    """Task names, task YAML paths, or ``FORMAT:PATH`` importer references."""
    model: str
    """``PROVIDER/NAME``."""
    output: Path
    backend: BackendOptions = Field(default_factory=BackendOptions)
    limit: int | None = Field(default=None, ge=1)
    """At most this many samples per task; zero or negative is refused (it would select nothing)."""
    sample_ids: tuple[str, ...] | None = None
    shard: Shard | None = None
    """Run only this share of the selected samples (``--shard I/N``); recorded in the manifest, and a run
    folder may be resumed under another one (``omnieval merge`` joins the folders)."""
    seed: int = 1234
    generation: dict[str, Any] = Field(default_factory=dict)
    """Overrides of each task's generation parameters (temperature, max_tokens, top_p, stop, seed)."""
    strict_metrics: bool = False
    """Use each metric's fixed ``<name>_strict`` variant instead of benchmark-parity behaviour."""
    blind: bool = False
    """Remove media from every prompt (text-only control); results are marked blind."""
    use_cache: bool = True
    cache_path: Path | None = None
    """Response cache file; defaults to ``OUTPUT/cache.sqlite``."""
    judge_cache_path: Path | None = None
    """The judges' response cache file; defaults to ``OUTPUT/judge_cache.sqlite`` (what ``omnieval rejudge``
    reads). An executor's shards point it at the run's own, so it is one file for the whole run."""
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    retry_errors: bool = True
    """On resume, run samples that ended in ``error`` again."""
    max_error_rate: float | None = None
    """Exit code 3 above this share of samples in error; None: only when every sample is in error."""
    breaker_threshold: int = Field(default=DEFAULT_THRESHOLD, ge=0)
    """Stop after this many identical non-transient failures in a row (``backends/breaker.py``); 0: never."""
    quiet: bool = False
    dry_run: bool = False
    judge: JudgeConfig | None = None
    """The run's judge; ``None`` judges only tasks whose ``judge.model`` names a default."""
    log_to: tuple[str, ...] = ()
    """Run hooks by registered name (``--log-to wandb,mlflow``): trackers that receive the run's events."""
    repeats: int | None = Field(default=None, ge=1)
    """Answers per sample (``--repeats K``), overriding each task's ``repeats.n``; ``None``: the task's
    own."""
    cost_limit: float | None = Field(default=None, gt=0)
    """Stop (``CostLimitReached``, exit code 4) before a request could take the run's spending (model and
    judges, all invocations on this output) past this many USD; every model called needs a price."""
    prices: Path | None = None
    """A price file whose entries replace or add to the built-in table (``backends/prices.json``)."""
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    """``--reasoning-effort``: mapped per provider (manifest ``backend.reasoning``; docs/running/providers.md)."""  # noqa: E501
    reasoning_budget: int | None = Field(default=None, ge=1)
    """``--reasoning-budget TOKENS``: a thinking budget where the provider takes one."""
    batch: bool = False
    """Send requests through the provider's batch API (``--batch-api``; about half the price, answers within
    hours)."""
    batch_api_group_size: int = Field(default=1000, ge=1)
    """Requests per provider batch (``--batch-api-group-size``; ``batch_size`` in manifests written before
    the rename, see :meth:`_renamed_batch_size`)."""
    batch_pending: int = Field(default=5000, ge=1)
    """Requests waiting on provider batches at once (``--batch-api-pending``): bounds memory, not the
    provider."""
    batch_poll_s: float = Field(default=10.0, gt=0)
    """Seconds between two polls of a batch's status."""

    @model_validator(mode="before")
    @classmethod
    def _renamed_batch_size(cls, data: Any) -> Any:
        """Migration of a configuration recorded before the rename: its ``batch_size`` was the Batch-API
        group size (now ``batch_api_group_size``; ``batch_size`` is the local batch size, a backend
        option), so an old run directory still resumes, re-scores and re-judges."""
        if isinstance(data, dict) and "batch_size" in data and "batch_api_group_size" not in data:
            data = {k: v for k, v in data.items() if k != "batch_size"} | {
                "batch_api_group_size": data["batch_size"]
            }
        return data
