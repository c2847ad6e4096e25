"""OCRBench's data layout (echo840/OCRBench, test), prompt and its script's substring scoring."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from omnieval.benchmarks.hub_vqa import (
    IMAGE,
    STRING,
    STRINGS,
    answer_list,
    appended_variants,
    image_sample,
    register_scorer,
    short_answer_spec,
)
from omnieval.benchmarks.ocrbench.scoring import QUESTION_TYPES, ocrbench_hit
from omnieval.metrics.base import register_aggregation
from omnieval.sources.hub import HubBenchmark, HubRow, register_hub_benchmark
from omnieval.types import MetricRef, Sample, SampleResult, ScoringInput, TaskSpec

__all__ = ["BENCH"]


@register_scorer("ocrbench.hit", strict="OCRBench's rule with full-width ASCII folded first.")
def hit(inp: ScoringInput, *, strict: bool) -> float:
    """1 when a ground-truth answer occurs in the answer (OCRBench's own scoring loop)."""
    return ocrbench_hit(
        inp.response, [str(t) for t in inp.targets], dataset=str(inp.metadata.get("dataset")), strict=strict
    )


@register_aggregation("ocrbench.total")
def total(values: Sequence[float], results: Sequence[SampleResult], /) -> float:
    """The script's final score: the number of questions answered (out of 1,000 on the full set)."""
    return float(sum(values))


def _sample(row: HubRow) -> Sample:
    sample_id = BENCH.sample_id(row)
    answers = answer_list(row, "answer", sample_id=sample_id)
    kind = row.get("question_type")
    if kind not in QUESTION_TYPES:
        raise row.error(f"unknown question type {kind!r}", field="question_type", sample_id=sample_id)
    return image_sample(
        row,
        sample_id=sample_id,
        prompt=str(row.get("question") or "").strip(),
        targets=answers,
        metadata={"question_type": kind, "dataset": str(row.get("dataset"))},
    )


def _spec() -> TaskSpec:
    return short_answer_spec(
        name="ocrbench",
        description="OCRBench (1,000 questions): substring match as its own script; final score out of 1,000",
        metric="ocrbench.hit",
        alias="accuracy",
        breakdowns=("question_type", "dataset"),
        max_tokens=128,
        source="echo840/OCRBench",
        licence="MIT (MultimodalOCR repository)",
        extra_metrics=(MetricRef(name="ocrbench.hit", alias="final_score", aggregate="ocrbench.total"),),
    )


def _example(position: int, config: str | None) -> dict[str, Any]:
    from omnieval.testing.hub_copies import tiny_png

    kinds = [
        ("IIIT5K", "Regular Text Recognition", ["HOTEL"]),
        ("HME100k", "Handwritten Mathematical Expression Recognition", ["x ^ { 2 } + 1"]),
        ("docVQA", "Doc-oriented VQA", ["1/8/93", "1-8-93"]),
        ("FUNSD", "Key Information Extraction", ["Smith"]),
    ]
    dataset, kind, answers = kinds[position % len(kinds)]
    return {
        "dataset": dataset,
        "question": f"what is written in the image {position}?",
        "question_type": kind,
        "answer": answers,
        "image": {"bytes": tiny_png(position), "path": f"{position}.png"},
    }


BENCH = register_hub_benchmark(
    HubBenchmark(
        name="ocrbench",
        variants=appended_variants(),
        dataset="echo840/OCRBench",
        split="test",
        columns=("dataset", "question", "question_type", "answer", "image"),
        spec=_spec,
        to_sample=_sample,
        modality="image",
        size=1000,
        licence="MIT (Yuliang-Liu/MultimodalOCR); not stated on the Hub card",
        homepage="https://github.com/Yuliang-Liu/MultimodalOCR",
        scorer="Yuliang-Liu/MultimodalOCR@794c36d6423cf1d5764081128bcaeb46b240def6:OCRBench/example.py",
        docs="docs/benchmarks/hub/ocrbench.md",
        features={
            "dataset": STRING,
            "question": STRING,
            "question_type": STRING,
            "answer": STRINGS,
            "image": IMAGE,
        },
        example_row=_example,
    )
)
