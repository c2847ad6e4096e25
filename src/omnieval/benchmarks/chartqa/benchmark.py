"""ChartQA's data layout (lmms-lab/ChartQA, test), prompt and relaxed-accuracy metric."""

from __future__ import annotations

from typing import Any

from omnieval.benchmarks.chartqa.scoring import relaxed_correct
from omnieval.benchmarks.hub_vqa import (
    IMAGE,
    STRING,
    image_sample,
    register_scorer,
    short_answer_spec,
    suffix_variants,
)
from omnieval.sources.hub import HubBenchmark, HubRow, register_hub_benchmark
from omnieval.types import Sample, ScoringInput, TaskSpec

__all__ = ["BENCH", "PROMPT_SUFFIX"]

PROMPT_SUFFIX = "\nAnswer the question with a single word."
"""lmms-eval's default ``post_prompt`` for ChartQA."""

SPLITS = ("human_test", "augmented_test")


@register_scorer(
    "chartqa.relaxed",
    strict="ChartQA relaxed accuracy with whitespace, final periods, thousands commas and zero fixed.",
)
def relaxed(inp: ScoringInput, *, strict: bool) -> float:
    """ChartQA relaxed accuracy as lmms-eval scores it (numbers within 5 %, else exact text)."""
    return float(relaxed_correct(inp.response, str(inp.targets[0]), strict=strict))


def _sample(row: HubRow) -> Sample:
    sample_id = BENCH.sample_id(row)
    kind = row.get("type")
    if kind not in SPLITS:
        raise row.error(f"type {kind!r} is not one of {SPLITS}", field="type", sample_id=sample_id)
    answer = row.get("answer")
    if not isinstance(answer, str):
        raise row.error(f"the answer is not a string ({answer!r})", field="answer", sample_id=sample_id)
    question = str(row.get("question") or "")
    return image_sample(
        row,
        sample_id=sample_id,
        prompt=f"{question}{PROMPT_SUFFIX}",
        targets=(answer,),
        metadata={"type": kind},
    )


def _spec() -> TaskSpec:
    return short_answer_spec(
        name="chartqa",
        description="ChartQA (test): chart questions, relaxed accuracy (lmms-eval), human vs augmented",
        metric="chartqa.relaxed",
        alias="relaxed_accuracy",
        breakdowns=("type",),
        max_tokens=16,
        source="lmms-lab/ChartQA",
        licence="GPL-3.0 (ChartQA)",
    )


def _example(position: int, config: str | None) -> dict[str, Any]:
    from omnieval.testing.hub_copies import tiny_png

    answers = ["12", "45.5", "Yes", "1,200", "0", "17%", "Canada", "2019"]
    return {
        "type": SPLITS[position % 2],
        "question": f"What is the value of bar {position}?",
        "answer": answers[position % len(answers)],
        "image": {"bytes": tiny_png(position), "path": f"{position}.png"},
    }


BENCH = register_hub_benchmark(
    HubBenchmark(
        name="chartqa",
        variants=suffix_variants(PROMPT_SUFFIX),
        dataset="lmms-lab/ChartQA",
        split="test",
        columns=("type", "question", "answer", "image"),
        spec=_spec,
        to_sample=_sample,
        modality="image",
        size=2500,
        licence="GPL-3.0 (ChartQA); not stated on the lmms-lab card",
        homepage="https://github.com/vis-nlp/ChartQA",
        scorer="EvolvingLMMs-Lab/lmms-eval@75571cfe0fa36ca5ec2e6aa2bb268f9d38295af3:lmms_eval/tasks/chartqa/utils.py",
        docs="docs/benchmarks/hub/chartqa.md",
        features={"type": STRING, "question": STRING, "answer": STRING, "image": IMAGE},
        example_row=_example,
    )
)
