"""The declarative task specification: what a task YAML file validates into."""

from __future__ import annotations

import functools
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from omnieval.types._base import Frozen
from omnieval.types.agent import AgentSpec
from omnieval.types.content import MediaKind

__all__ = [
    "FewShotSpec",
    "FieldMap",
    "GenerationConfig",
    "JudgeSpec",
    "MediaField",
    "MediaPolicy",
    "MetricRef",
    "PluginRef",
    "PromptSpec",
    "PromptVariant",
    "RepeatsSpec",
    "SourceSpec",
    "TaskSpec",
]

SourceType = Literal["jsonl", "json", "csv", "tsv", "parquet", "hf_disk", "hf_folder", "hf_hub", "generator"]
Modality = Literal["text", "image", "audio", "video"]


class GenerationConfig(Frozen):
    """Decoding parameters; part of every cache key and every manifest."""

    temperature: float = 0.0
    max_tokens: int = 256
    top_p: float | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = 1234


class PluginRef(Frozen):
    """A registered plugin by name, with keyword options checked against its signature."""

    name: str
    options: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value


class MetricRef(PluginRef):
    """A metric to compute per sample, optionally renamed and aggregated differently."""

    alias: str | None = None
    """Name under which the metric is reported (defaults to ``name``)."""
    aggregate: str = "mean"
    """Registered aggregation over samples (``mean``, ``group_all`` ...)."""
    aggregate_options: dict[str, Any] = Field(default_factory=dict)

    @property
    def key(self) -> str:
        return self.alias or self.name


class MediaField(Frozen):
    """A dataset column that holds media."""

    field: str
    kind: MediaKind
    name: str | None = None
    """Placeholder name in the text (``<image>``); defaults to the field name."""


class FieldMap(Frozen):
    """Which dataset columns fill which sample attributes (dotted paths reach nested keys)."""

    id: str | None = "id"
    """Column with the sample id; ``None`` numbers rows from 0."""
    input: str | None = "question"
    targets: str | None = "answer"
    choices: str | None = "choices"
    media: tuple[MediaField, ...] = ()
    metadata: tuple[str, ...] | Literal["*"] = "*"
    """Columns copied into ``Sample.metadata``; ``*`` copies all columns."""
    chain: str | None = None
    """Column naming a sequential chain (dialogue id): its samples run in order."""
    chain_index: str | None = None


class SourceSpec(Frozen):
    """Where samples come from."""

    type: SourceType = "jsonl"
    path: str | None = None
    """File or directory, relative to the task file."""
    name: str | None = None
    """HF dataset id (``hf_hub``) or generator name (``generator``)."""
    split: str = "test"
    config: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    fields: FieldMap = Field(default_factory=FieldMap)
    adapter: PluginRef | None = None
    """Registered row adapter for what a field map cannot say (Python escape hatch)."""
    transforms: tuple[PluginRef, ...] = ()
    """Registered sample transforms applied in order (e.g. CircularEval option rotations)."""


class PromptVariant(Frozen):
    """One prompt wording; variants are spread evenly over samples."""

    id: str
    template: str
    """jinja2 template; sees ``input``, ``fields``, ``choices``, ``options_block``, ``metadata``,
    ``history``."""
    system: str | None = None


class FewShotSpec(Frozen):
    """Demonstrations prepended to each prompt."""

    n: int = 0
    source: SourceSpec | None = None
    """Where demos come from; defaults to the task source with ``split`` below."""
    split: str | None = None
    seed: int = 1234
    answer_template: str = "{{ target }}"


class PromptSpec(Frozen):
    """How a sample becomes a request."""

    format: Literal["chat", "completion"] = "chat"
    system: str | None = None
    template: str | None = None
    """Single template; shorthand for one variant named ``default``."""
    variants: tuple[PromptVariant, ...] = ()
    fewshot: FewShotSpec = Field(default_factory=FewShotSpec)
    choice_labels: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    target_as_label: bool = True
    """For multiple choice: the gold answer as the model should write it is the option letter."""
    target_template: str | None = None
    """jinja2 template turning a gold target into the response the oracle baseline gives
    (sees ``target``, ``sample``); defaults to the option letter (MC) or the target itself."""
    request_kind: Literal["generate", "loglikelihood"] = "generate"
    """``loglikelihood`` scores each choice instead of generating (text LMs; the backend answers the
    label of the most likely choice and fills ``Response.logprobs``)."""
    history: Literal["messages", "template"] = "messages"
    """For chains: earlier turns as chat messages, or only as the ``history`` template variable."""
    renderer: PluginRef | None = None
    """Registered Python renderer replacing the template machinery (escape hatch)."""

    def all_variants(self) -> tuple[PromptVariant, ...]:
        if self.variants:
            return self.variants
        return _default_variant(self.template if self.template is not None else _DEFAULT_TEMPLATE)


class MediaPolicy(Frozen):
    """How media are prepared; recorded per sample. Model options may override it."""

    image_max_side: int | None = None
    image_max_pixels: int | None = None
    audio_sample_rate: int = 16000
    audio_mono: bool = True
    video_fps: float = 1.0
    video_max_frames: int = 16
    video_mode: Literal["frames", "file"] = "frames"
    max_images: int | None = None
    """Most images one request may carry (frames count as images)."""
    demo_max_images: int | None = None
    """Share of ``max_images`` reserved for few-shot demonstrations; demo images beyond it are dropped."""


class JudgeSpec(Frozen):
    """How a task is judged: protocol, prompt template, verdict parser, scale and derived task values.

    The judge *model* normally comes from the run (``--judge SPEC``); ``model`` is the task's default.
    """

    key: str = "js"
    """Result key of the per-sample judge value (in ``metrics``, in [0, 1])."""
    protocol: PluginRef = Field(default_factory=lambda: PluginRef(name="direct"))
    """Registered judge protocol: which judge calls one sample needs and how their verdicts combine."""
    template: str | None = None
    """Registered judge prompt template (``name`` or ``name@version``) for generative judges."""
    parser: PluginRef = Field(default_factory=lambda: PluginRef(name="judge_binary"))
    """Registered parser turning the judge's raw output into ``Parsed(value=<number>)``."""
    scale: tuple[float, float] = (0.0, 1.0)
    """Inclusive verdict range; a verdict outside it is retried, then ``judge_failed``."""
    divide_by: float | None = None
    """The sample value is ``verdict / divide_by`` (default: the scale's upper bound, e.g. 10 for 1–10)."""
    retries: int = 2
    """Extra judge calls after an unparseable or out-of-range verdict (bounded, then ``judge_failed``)."""
    model: str | None = None
    """Default judge model spec for this task (``--judge`` overrides it)."""
    generation: GenerationConfig = Field(
        default_factory=lambda: GenerationConfig(temperature=0.0, max_tokens=64)
    )
    """Decoding for generative judges (``--judge-temperature`` / ``--judge-max-tokens`` override)."""
    metrics: tuple[MetricRef, ...] = ()
    """Per-sample metrics computed only when the task is judged, after the judge (they read
    ``ScoringInput.judgements``); a key they share with ``TaskSpec.metrics`` is replaced in judged runs
    (e.g. FS = (EM + JS)/2 instead of EM) and left out of ``judge_failed`` samples."""
    derived: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Task-level values computed after aggregation as the mean of other task values, e.g.
    ``{"fs": ("em", "js")}``; applied only when every listed value exists (the judge ran)."""

    @model_validator(mode="after")
    def _check(self) -> JudgeSpec:
        low, high = self.scale
        if low > high:
            raise ValueError(f"judge scale {self.scale} is empty (low > high)")
        if self.retries < 0:
            raise ValueError("judge retries must be >= 0")
        if self.value_divisor <= 0:
            raise ValueError("judge divide_by (or the scale's upper bound) must be > 0")
        return self

    @property
    def value_divisor(self) -> float:
        return self.divide_by if self.divide_by is not None else self.scale[1]


class RepeatsSpec(Frozen):
    """Repeated sampling (``repeats:`` in a task file; ``repeats: 5`` is short for ``repeats: {n: 5}``)."""

    n: int = Field(ge=1)
    """Answers generated per sample, each with its own generation seed (``--repeats K`` overrides it)."""
    pass_k: tuple[int, ...] = ()
    """The ``k`` of each reported ``pass@k`` (each ≤ ``n``); default ``(1, n)``."""
    threshold: float = Field(default=1.0, ge=0.0, le=1.0)
    """A repeat counts as correct for ``pass@k`` when its score is at least this (1.0: full credit only)."""

    @model_validator(mode="after")
    def _check_k(self) -> RepeatsSpec:
        check_pass_k(self.pass_k, self.n, where="repeats.pass_k")
        return self


def check_pass_k(pass_k: tuple[int, ...], n: int, *, where: str) -> None:
    """``pass@k`` needs ``1 ≤ k ≤ n`` answers per sample: say which ``k`` is out of range."""
    bad = [k for k in pass_k if not 1 <= k <= n]
    if bad:
        raise ValueError(f"{where}: pass@k needs 1 ≤ k ≤ repeats ({n}); got k = {', '.join(map(str, bad))}")


class TaskSpec(Frozen):
    """A complete, validated task definition."""

    name: str
    version: str = "1"
    description: str = ""
    modalities: tuple[Modality, ...] = ("text",)
    tags: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    language: str = "ru"
    source: SourceSpec = Field(default_factory=SourceSpec)
    prompt: PromptSpec = Field(default_factory=PromptSpec)
    parser: PluginRef = Field(default_factory=lambda: PluginRef(name="strip"))
    metrics: tuple[MetricRef, ...] = (MetricRef(name="exact_match"),)
    score: str | None = None
    """Metric key reported as the task score; defaults to the first metric."""
    truncated: Literal["zero", "score_text"] = "zero"
    """How a response cut off at ``max_tokens`` is scored; its state is ``truncated`` either way.

    ``zero`` (the engine default): a cut-off answer is unfinished, so it earns nothing. Scoring it
    would credit text that merely contains the answer on its way elsewhere (a model listing every
    option before running out of tokens) and make scores depend on the token budget.
    ``score_text``: score whatever text came back, as benchmarks whose original scorers do so
    (MERA, MEGA-Bench) require for parity.
    """
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    media: MediaPolicy = Field(default_factory=MediaPolicy)
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form task facts (licence, human baseline, domain) that reports may show."""
    judge: JudgeSpec | None = None
    """How the task is judged when the run has a judge (``--judge``) or ``judge.model`` is set."""
    repeats: RepeatsSpec | None = None
    """Generate several answers per sample (pass@k, maj@k, avg@k); ``None``: one answer, no repeat index."""
    breakdowns: tuple[str, ...] = ()
    """Sample metadata keys the score is broken down by (MMMU's subject, MMBench's ability): results
    carry the score of each value, aggregated as the task score is."""
    agent: AgentSpec | None = None
    """Tools and limits of a multi-step task: each sample is an episode of model turns and tool calls."""

    @field_validator("repeats", mode="before")
    @classmethod
    def _repeats_short(cls, value: Any) -> Any:
        return {"n": value} if isinstance(value, int) and not isinstance(value, bool) else value

    @property
    def score_key(self) -> str:
        return self.score or self.metrics[0].key

    @model_validator(mode="after")
    def _check_score(self) -> TaskSpec:
        keys = {m.key for m in self.metrics}
        if self.score is not None and self.score not in keys and not self.metadata.get("score_from_dict"):
            raise ValueError(f"score {self.score!r} is not one of the task's metrics {sorted(keys)}")
        return self


_DEFAULT_TEMPLATE = "{{ input }}{{ options_block }}"


@functools.lru_cache(maxsize=256)
def _default_variant(template: str) -> tuple[PromptVariant, ...]:
    """The one variant of a prompt without ``variants``, made once per template (every request asks)."""
    return (PromptVariant(id="default", template=template),)
