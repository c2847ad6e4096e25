"""Per-sample judge records: what ``samples.jsonl`` keeps of every judge call (the spec is in ``task``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from omnieval.types._base import Frozen
from omnieval.types.response import Usage

__all__ = ["JudgeAttempt", "JudgeCall", "JudgeRecord"]


class JudgeAttempt(Frozen):
    """One call to the judge model: its raw output and what the parser made of it."""

    raw: str | None = None
    """The judge's raw output (``None`` when the call itself failed)."""
    verdict: float | None = None
    """The parsed, in-range verdict; ``None`` when this attempt failed."""
    error: str | None = None
    """Why the attempt gave no verdict (endpoint error, unparseable, out of range)."""
    cached: bool = False
    latency_s: float | None = None
    usage: Usage | None = None
    cost_usd: float | None = None
    """This call's cost by the run's price table (0 for a cache hit; ``None``: no price known)."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Backend facts worth keeping (a classifier's ``probs``)."""


class JudgeCall(Frozen):
    """One judged item of a sample (e.g. the full answer, or the text after ``ОТВЕТ``) and its attempts."""

    label: str
    attempts: tuple[JudgeAttempt, ...] = ()
    verdict: float | None = None
    """The last attempt's verdict; ``None`` when every attempt failed."""


class JudgeRecord(Frozen):
    """Everything the judge stage did for one sample (``SampleResult.judge``)."""

    judge: str
    """Judge model spec, e.g. ``openai/gpt-4o`` or ``hf/./judge``."""
    version: str
    """Judge version: a hash over model spec, protocol, template, parser, scale and decoding."""
    key: str
    value: float | None = None
    """The sample's judge value in [0, 1]; ``None`` when the sample is ``judge_failed``."""
    calls: tuple[JudgeCall, ...] = ()
    reason: str | None = None
    """Why the sample is ``judge_failed``."""
    question: str | None = None
    """The rendered prompt the judge saw as the question (kept so ``rejudge`` needs no re-rendering)."""
