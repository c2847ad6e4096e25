"""results.json, typed: the whole document and every block in it, each refusing a key it does not know.

Aggregation builds these models and ``results.json`` is written from them (:meth:`ResultsFile.document`).
A key that only some runs have (``hooks``, ``stopped``, a task's ``recognition``...) is written only when
the run set it: the document keeps exactly the keys that were given to the model (``exclude_unset``), so a
file read and written again is the same file.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from omnieval.types._base import Frozen

__all__ = [
    "CauseCount",
    "HookReport",
    "JudgeSummary",
    "LatencySummary",
    "RepeatSummary",
    "ResultsFile",
    "RunCost",
    "TaskCost",
    "TaskIds",
    "TaskResults",
    "VariantScore",
]


class CauseCount(Frozen):
    """One bucket of ``error_causes``: how many samples failed this way, and one example reason."""

    n: int = Field(ge=0)
    example: str
    """The smallest reason of the bucket (so record order does not change it), cut to 300 characters."""


class VariantScore(Frozen):
    """One prompt variant's mean per-sample score (``by_variant``)."""

    n: int = Field(ge=0)
    score: float


class JudgeSummary(Frozen):
    """How a judged task's judge values were made (a task's ``judge`` block)."""

    judged: bool
    """The run had a judge for the task (even if no sample could be judged)."""
    key: str
    """The judge's own metric key."""
    versions: dict[str, int] = Field(default_factory=dict)
    """Records per judge version (a re-judge replaces them all)."""
    n_judged: int = 0
    """Samples with a judge value."""
    judge_failed: int = 0
    derived: dict[str, str] = Field(default_factory=dict)
    """Derived keys and how they are computed (``mean(a, b)``)."""
    groups_key: str | None = None
    """The group-aggregated judge metric whose groups are counted (only when the task has one)."""
    groups_judged: int | None = None
    groups_left_out: int | None = None
    """Groups left out because one of their samples is ``judge_failed``."""
    note: str = ""


class RepeatSummary(Frozen):
    """Repeated sampling (a task's ``repeats`` block): K, the spread across repeats and how the CI is made."""

    k: int
    pass_k: tuple[int, ...]
    pass_threshold: float
    samples: int
    per_repeat_scores: tuple[float, ...]
    per_repeat_sd: float
    per_repeat_range: tuple[float, float]
    within_sample_variance: float
    majority_tie_break: str
    ci: str


class AgentSummary(Frozen):
    """A multi-step (agent) task's episodes: how they ended, the tool calls' validity, the effort to
    success. ``success_rate`` is the task score; ``steps_to_success`` and ``tokens_to_success`` average
    the successful episodes only (``None`` when none succeeded)."""

    episodes: int
    success_rate: float
    ends: dict[str, int]
    """Episodes by how they ended (``submitted``, ``final_answer``, ``step_limit``, …)."""
    tool_calls: int
    call_states: dict[str, int]
    """Tool calls by state (``ok``, ``unknown_tool``, ``bad_arguments``, ``tool_error``, ``tool_timeout``)."""
    valid_call_rate: float | None
    """Share of tool calls naming a known tool with arguments that pass its schema."""
    mean_steps: float
    steps_to_success: float | None
    tokens_to_success: float | None
    cost_usd: float | None
    """The episodes' model cost summed (``None``: no price known)."""


class LatencySummary(Frozen):
    """A task's streamed answers (``--stream``): how long users of the server wait, from the run that
    scored them (cache hits left out). The concurrency and the server are the run's ``backend`` block."""

    n: int = Field(ge=0)
    """Streamed answers timed."""
    ttft_p50_s: float | None = None
    """Median seconds to the first piece of answer."""
    ttft_p95_s: float | None = None
    tokens_per_s_p50: float | None = None
    """Median output tokens per second after the first one."""
    tokens_per_s_p95: float | None = None
    latency_p50_s: float | None = None
    """Median seconds of a whole answer."""
    latency_p95_s: float | None = None


class TaskCost(Frozen):
    """What a task's answers and judge calls cost by the run's price table (USD)."""

    model_usd: float
    judge_usd: float
    priced: int
    unpriced: int
    """Records whose model has no price."""
    total_usd: float


class TaskIds(Frozen):
    """A platform submission's sample coverage of one task."""

    answered: int
    missing: int
    unknown: int


class TaskResults(Frozen):
    """One task's block of results.json."""

    score: float | None
    """The task's headline score in [0, 1]; ``None`` when nothing was scored (hidden answers, no judge
    value): never 0.0 for a score that does not exist."""
    n: int = Field(ge=0)
    n_scored: int | None = None
    """Samples that count in the score (prediction-only ones do not)."""
    scored: bool = True
    states: dict[str, int]
    """Samples per end state (ok, parse_failed, truncated, error, skipped, judge_failed)."""
    metrics: dict[str, float] = Field(default_factory=dict)
    score_metric: str | None = None
    ci95: tuple[float, float] | None = None
    """Bootstrap 95% interval of the score; ``None`` for fewer than two values or no score."""
    prediction_only: int = 0
    """Samples without a gold answer (hidden answers): never scored."""
    example_reasons: dict[str, list[str]] = Field(default_factory=dict)
    """Up to three distinct reasons per non-ok state."""
    error_causes: dict[str, CauseCount] = Field(default_factory=dict)
    unscored_ids: list[str] = Field(default_factory=list)
    """Up to five ids of prediction-only samples."""
    by_variant: dict[str, VariantScore] = Field(default_factory=dict)
    """Per prompt variant, when the task has several."""
    breakdowns: dict[str, dict[str, VariantScore]] = Field(default_factory=dict)
    """The score by each value of each of the task's breakdown keys (``{"subject": {"Art": …}}``),
    aggregated as the task score is (written only for a task that declares breakdowns)."""
    parse_fallbacks: int = 0
    truncated_scoring: str | None = None
    version: str | None = None
    """The task's version."""
    metric_versions: dict[str, str] = Field(default_factory=dict)
    judge: JudgeSummary | None = None
    repeats: RepeatSummary | None = None
    agent: AgentSummary | None = None
    """Tasks with ``agent:`` only."""
    cost: TaskCost | None = None
    hash: str | None = None
    """The task's content hash."""
    modalities: tuple[str, ...] = ()
    language: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    """The task's own metadata (free-form, from its spec)."""
    recognition: dict[str, int] = Field(default_factory=dict)
    """A cascade's media recognised per kind, and how many came out empty."""
    ids: TaskIds | None = None
    """Platform submissions only: the task's sample coverage."""
    template_leaks: int = 0
    """Answers holding a chat template's special tokens (``<|im_end|>``, ``<end_of_turn>``...): the server
    applied a template the model was not trained with (written only when some did)."""
    template_leak_example: str | None = None
    """The first such token seen."""
    latency: LatencySummary | None = None
    """Streamed runs only (``--stream``): time to first token and output tokens per second."""


class RunCost(Frozen):
    """What the whole run cost (USD), over all its tasks."""

    model_usd: float
    judge_usd: float
    total_usd: float
    priced: int
    unpriced: int
    note: str = ""


class HookReport(Frozen):
    """One hook's delivery report: how many events failed and the first error."""

    failures: int
    first_error: str | None = None
    events: dict[str, int] = Field(default_factory=dict)


class ResultsFile(Frozen):
    """results.json."""

    schema_version: Literal[2] = 2
    """The layout's version; an older file is migrated on load (``types.migrations``)."""
    model: str
    omnieval_version: str | None = None
    tasks: dict[str, TaskResults]
    states: dict[str, int] = Field(default_factory=dict)
    """Samples per end state over all tasks (always written; hand-made files may leave it out)."""
    cost: RunCost | None = None
    blind: bool = False
    retries: int = 0
    backend: dict[str, Any] = Field(default_factory=dict)
    """The backend's own description (provider, model, modalities...; backend-defined keys)."""
    model_kind: str = "model"
    """``model``, or ``cascade`` for a perception + text-model pipeline."""
    stopped: Literal["cost_limit"] | None = None
    """Why the run stopped early; absent for a run that finished."""
    cost_limit: float | None = None
    hooks: dict[str, HookReport | int] = Field(default_factory=dict)
    """Per hook its delivery report; ``dropped_events`` (a count) when the queue overflowed."""
    rescored: bool = False
    rejudged: bool = False
    judges: dict[str, Any] = Field(default_factory=dict)
    """The judges of the last re-judge (judge-defined description per task)."""
    imported_from: str | None = None
    """The tool the results were imported from (``lm-eval``)."""
    breakdowns: list[dict[str, Any]] = Field(default_factory=list)
    """Platform submissions only: the capability breakdowns over tasks."""
    score_digits: int | None = None
    """Platform submissions only: the digits a submitter is shown."""
    not_attempted: list[str] = Field(default_factory=list)
    """Platform submissions only: tasks answered but not scored."""
    run_dir: str | None = Field(default=None, exclude=True)
    """Where the run was read from, set by readers (boards name a run by it); never written."""

    def document(self) -> dict[str, Any]:
        """The JSON document as written: the keys that were set, in field order."""
        return self.model_dump(mode="json", exclude_unset=True)
