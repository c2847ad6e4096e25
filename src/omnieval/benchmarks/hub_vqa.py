"""What the published short-answer benchmarks (ChartQA, DocVQA, TextVQA, OCRBench, MMAU, MWS-Vision-Bench)
share: Hub feature declarations, the task spec, and one-image samples.

Each benchmark's metric reads the raw response (``inp.response``), as its official scorer reads the
model's output, and its targets (the ground-truth answers as published).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from omnieval.sources.hub import HubRow, image_ref, reworded
from omnieval.types import MetricRef, PluginRef, PromptSpec, PromptVariant, Sample, TaskSpec

__all__ = [
    "IMAGE",
    "STRING",
    "STRINGS",
    "answer_list",
    "appended_variants",
    "image_sample",
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
    modalities: tuple[str, ...] = ("image", "text"),
    language: str = "en",
    breakdowns: tuple[str, ...] = (),
    max_tokens: int = 128,
    source: str,
    licence: str,
    extra_metrics: tuple[MetricRef, ...] = (),
) -> TaskSpec:
    """A generate-and-score task: the rendered ``input`` as the prompt, the raw answer to ``metric``."""
    return TaskSpec(
        name=name,
        description=description,
        modalities=modalities,  # type: ignore[arg-type]
        language=language,
        prompt=PromptSpec(template="{{ input }}"),
        parser=PluginRef(name="strip"),
        metrics=(MetricRef(name=metric, alias=alias, aggregate=aggregate), *extra_metrics),
        breakdowns=breakdowns,
        generation={"max_tokens": max_tokens},  # type: ignore[arg-type]
        metadata={"source": source, "licence": licence},
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
