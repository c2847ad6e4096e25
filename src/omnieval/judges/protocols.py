"""Judge protocols: which judge calls one sample needs, and how their verdicts combine.

A protocol is ``fn(inp: JudgeInput, /, **options) -> JudgePlan``, registered with
``@register_judge_protocol(name)``. Each :class:`CallSpec` carries both forms of the item: ``variables``
for a generative judge's prompt template and ``pieces`` for a classifier, which joins them with its
tokenizer's separator (``question [SEP] gold [SEP] answer``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from omnieval.registry import Registry
from omnieval.types import MediaRef, Sample

__all__ = ["CallSpec", "JudgeInput", "JudgePlan", "judge_protocols", "register_judge_protocol"]


@dataclass(frozen=True)
class JudgeInput:
    """What a protocol sees of one sample."""

    sample: Sample
    question: str
    """The full rendered prompt the model under test saw (text only)."""
    answer: str
    """The model's answer (reasoning stripped)."""
    targets: tuple[str, ...]
    """Gold answers as the model should write them (option letters for multiple choice)."""


@dataclass(frozen=True)
class CallSpec:
    """One judge call: a label for the record, template variables, classifier pieces, optional media."""

    label: str
    variables: dict[str, Any]
    pieces: tuple[str, ...] = ()
    """Texts a classifier joins with its separator; empty when the protocol is generative-only."""
    media: tuple[MediaRef, ...] = ()
    """Media given to a generative judge with the prompt (e.g. MEGA-Bench's query images)."""
    truncate: tuple[int, int] | None = None
    """``(max_tokens, offset)``: a classifier input longer than ``max_tokens - offset`` tokens is judged
    as both its right and its left truncation (MERA's rule)."""


Combine = Literal["max", "min", "mean", "first"]


@dataclass(frozen=True)
class JudgePlan:
    """The calls of one sample and how their verdicts become one value."""

    calls: tuple[CallSpec, ...]
    combine: Combine = "first"
    notes: dict[str, Any] = field(default_factory=dict)


ProtocolFn = Callable[..., JudgePlan]
judge_protocols: Registry[ProtocolFn] = Registry("judge protocol", group="omnieval.judge_protocols")


def register_judge_protocol(name: str) -> Callable[[ProtocolFn], ProtocolFn]:
    """Register a judge protocol under ``name``."""
    return judge_protocols.register(name)


def _gold(inp: JudgeInput) -> str:
    return str(inp.targets[0]) if inp.targets else ""


@register_judge_protocol("direct")
def direct(inp: JudgeInput, /, *, with_media: bool = False) -> JudgePlan:
    """One call on the whole answer: ``question``, ``gold``, ``golds``, ``answer`` (and the sample)."""
    variables = {
        "question": inp.question,
        "gold": _gold(inp),
        "golds": list(inp.targets),
        "answer": inp.answer,
        "sample": inp.sample,
    }
    media = inp.sample.media if with_media else ()
    return JudgePlan((CallSpec("answer", variables, (inp.question, _gold(inp), inp.answer), media),))


@register_judge_protocol("reference_match")
def reference_match(
    inp: JudgeInput,
    /,
    *,
    marker: str | None = "ОТВЕТ",
    max_tokens: int | None = 8000,
    offset: int = 5,
    with_media: bool = False,
) -> JudgePlan:
    """Binary equivalence of answer and gold: the full answer and the text after the last ``marker``,
    verdict = the maximum over the candidates (MERA's JudgeScore).

    As MERA's scorer: the marker is case-sensitive; the second candidate is ``answer.split(marker)[-1]``
    stripped (so without a marker it is the stripped full answer) and is dropped when empty; an
    identical candidate text is judged once (a classifier is deterministic).
    """
    candidates = [("full", inp.answer)]
    if marker:
        tail = inp.answer.split(marker)[-1].strip()
        if tail:
            candidates.append(("after_marker", tail))
    seen: set[str] = set()
    calls = []
    truncate = (max_tokens, offset) if max_tokens else None
    media = inp.sample.media if with_media else ()
    for label, text in candidates:
        if text in seen:
            continue
        seen.add(text)
        variables = {
            "question": inp.question,
            "gold": _gold(inp),
            "golds": list(inp.targets),
            "answer": text,
            "sample": inp.sample,
        }
        calls.append(CallSpec(label, variables, (inp.question, _gold(inp), text), media, truncate))
    return JudgePlan(tuple(calls), combine="max")
