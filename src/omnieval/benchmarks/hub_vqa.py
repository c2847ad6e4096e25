"""What the published short-answer benchmarks (ChartQA, DocVQA, TextVQA, OCRBench, MMAU, MWS-Vision-Bench)
share: Hub feature declarations, the task spec, and one-image samples.

Each benchmark's metric reads the raw response (``inp.response``), as its official scorer reads the
model's output, and its targets (the ground-truth answers as published).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from omnieval.metrics.base import MetricDef, metrics
from omnieval.sources.hub import HubRow, image_ref, prompted_spec, reworded
from omnieval.types import MetricRef, PromptVariant, Sample, ScoringInput, TaskSpec

__all__ = [
    "IMAGE",
    "STRING",
    "STRINGS",
    "answer_list",
    "appended_variants",
    "image_sample",
    "register_scorer",
    "short_answer_spec",
    "suffix_variants",
]

STRING: dict[str, Any] = {"dtype": "string", "_type": "Value"}
STRINGS: dict[str, Any] = {"feature": STRING, "_type": "Sequence"}
IMAGE: dict[str, Any] = {"_type": "Image"}

SHORT_ANSWER = {
    "short": "Reply with only the answer: a single word, number or short phrase.",
    "look": "Look carefully at the image and give the answer as briefly as possible.",
}
"""Our alternative short-answer instructions (prompt variants ``short`` and ``look``; no harness's)."""


@dataclass(frozen=True)
class _Reading:
    """One reading of a two-reading scorer, ``score(inp, strict=strict)`` (an object, not a closure, so a
    metric pickles by its scorer's name)."""

    score: Callable[..., float]
    strict: bool

    def __call__(self, inp: ScoringInput, /) -> float:
        return self.score(inp, strict=self.strict)


Scorer = Callable[..., float]
"""``(inp: ScoringInput, *, strict: bool) -> float``: one answer's score, by the official scorer or fixed."""


def register_scorer(name: str, *, strict: str) -> Callable[[Scorer], Scorer]:
    """Register a scorer twice: as metric ``name``, the official scorer's reading (``strict=False``; its
    docstring's first line describes it), and as ``name_strict``, the fixed reading ``--strict-metrics``
    swaps in (described by ``strict``)."""

    def decorate(score: Scorer) -> Scorer:
        parity = (score.__doc__ or "").strip().splitlines()[0]
        for metric, reading, description in ((name, False, parity), (f"{name}_strict", True, strict)):
            metrics.add(metric, MetricDef(metric, _Reading(score, reading), description=description))
        return score

    return decorate


def suffix_variants(suffix: str) -> tuple[PromptVariant, ...]:
    """Variants replacing the harness's answer instruction ``suffix`` (``"\\n" + instruction``)."""
    return tuple(reworded(name, (suffix, f"\n{text}")) for name, text in SHORT_ANSWER.items())


def appended_variants(wordings: Mapping[str, str] = SHORT_ANSWER) -> tuple[PromptVariant, ...]:
    """Variants adding an instruction (``wordings``: id → text) after a prompt that is the bare question
    (no harness instruction to replace)."""
    return tuple(
        PromptVariant(id=name, template=f"{{{{ input }}}}\n{text}") for name, text in wordings.items()
    )


def short_answer_spec(
    *,
    name: str,
    description: str,
    metric: str,
    alias: str,
    aggregate: str = "mean",
    modality: str = "image",
    language: str = "en",
    breakdowns: tuple[str, ...] = (),
    max_tokens: int = 128,
    source: str,
    licence: str,
    extra_metrics: tuple[MetricRef, ...] = (),
) -> TaskSpec:
    """A generate-and-score task: the rendered ``input`` as the prompt, the raw answer to ``metric``."""
    return prompted_spec(
        name,
        description=description,
        modality=modality,
        language=language,
        parser="strip",
        metric=(MetricRef(name=metric, alias=alias, aggregate=aggregate), *extra_metrics),
        breakdowns=breakdowns,
        max_tokens=max_tokens,
        source=source,
        metadata={"licence": licence},
    )


def answer_list(row: HubRow, column: str, *, sample_id: str, at_least: int = 1) -> tuple[str, ...]:
    """A ``Sequence(string)`` answer column as a tuple; too few answers is a data error."""
    value = row.get(column)
    answers = [value] if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else []
    if len(answers) < at_least or any(not isinstance(a, str) for a in answers):
        raise row.error(
            f"needs at least {at_least} string answer(s), got {value!r}", field=column, sample_id=sample_id
        )
    return tuple(answers)


def image_sample(
    row: HubRow,
    *,
    sample_id: str,
    prompt: str,
    targets: tuple[Any, ...],
    metadata: dict[str, Any],
    column: str = "image",
) -> Sample:
    """One question about one image."""
    return Sample(
        id=sample_id,
        input=prompt,
        targets=targets,
        media=(image_ref(row, column, name=column, sample_id=sample_id),),
        metadata=metadata,
    )
