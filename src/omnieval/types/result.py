"""Parse results and per-sample outcomes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from omnieval.types._base import Frozen
from omnieval.types.agent import Episode
from omnieval.types.audio import SpokenAudio
from omnieval.types.judge import JudgeRecord
from omnieval.types.response import FinishReason, StreamTiming, Usage

__all__ = ["STATES", "ParseFailure", "ParseOutcome", "Parsed", "SampleResult", "State"]

State = Literal["ok", "parse_failed", "truncated", "error", "skipped", "judge_failed"]
"""The one explicit state each sample ends in."""

STATES: tuple[State, ...] = ("ok", "parse_failed", "truncated", "error", "skipped", "judge_failed")


class Parsed(Frozen):
    """A successful parse: the extracted answer and how it was found."""

    ok: Literal[True] = True
    value: Any
    how: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Facts the parser adds to the sample's record metadata: what its task-level settle step reads back
    (:func:`omnieval.parsers.register_parser`'s ``settle``), e.g. that an answer was guessed at random."""


class ParseFailure(Frozen):
    """A failed parse, kept as a value so it is counted, never hidden."""

    ok: Literal[False] = False
    reason: str
    fallback: Any = None
    """What the metric scores when a benchmark's rules say to score the raw text anyway."""


ParseOutcome = Parsed | ParseFailure


class SampleResult(Frozen):
    """One line of ``samples.jsonl``: everything known about one sample of one run."""

    task: str
    sample_id: str
    state: State
    score: float = 0.0
    """Primary score in [0, 1]; 0 for every non-ok state (and counted by state)."""
    metrics: dict[str, float] = Field(default_factory=dict)
    response: str | None = None
    raw_response: str | None = None
    reasoning: str | None = None
    extracted: Any = None
    reason: str | None = None
    """Why the sample is not ``ok`` (error message, skip reason, parse failure)."""
    targets: tuple[Any, ...] = ()
    variant: str | None = None
    finish_reason: FinishReason | None = None
    usage: Usage | None = None
    latency_s: float | None = None
    cached: bool = False
    fingerprint: str | None = None
    chain: str | None = None
    chain_index: int | None = None
    scored: bool = True
    """False for prediction-only samples (hidden answers): never scored as 0, never averaged."""
    media_policy: dict[str, Any] = Field(default_factory=dict)
    """The media processing actually applied (sizes, frames, sample rate)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    intermediates: tuple[dict[str, Any], ...] = ()
    """What a cascade's perception stages recognised (transcripts, OCR text), one entry per media part."""
    audio: SpokenAudio | None = None
    """A spoken answer: its file under the run folder, its checks and transcript (``response``)."""
    judge: JudgeRecord | None = None
    """What the judge stage did (calls, raw outputs, verdicts); ``None`` when the task was not judged."""
    cost_usd: float | None = None
    """What the model's answer cost by the run's price table (0 for a cache hit; ``None``: no price);
    judge calls carry their own (``judge.calls[].attempts[].cost_usd``)."""
    episode: Episode | None = None
    """The agent episode step by step (tasks with ``agent:``); what re-scoring reads the final state from."""
    stream: StreamTiming | None = None
    """Time to first token and output tokens per second of a streamed answer (``--stream``)."""
    repeat: int | None = None
    """Which of the sample's repeated answers this is (0-based); ``None`` without repeats. Kept the last
    field, so resuming reads it from the end of the line without parsing it."""
