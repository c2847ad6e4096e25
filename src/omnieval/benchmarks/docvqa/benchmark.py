"""DocVQA's data layout (lmms-lab/DocVQA, config DocVQA, validation), prompt and ANLS metric."""

from __future__ import annotations

from typing import Any

from omnieval.benchmarks.docvqa.scoring import anls
from omnieval.benchmarks.hub_vqa import (
    IMAGE,
    STRING,
    STRINGS,
    answer_list,
    image_sample,
    register_scorer,
    short_answer_spec,
    suffix_variants,
)
from omnieval.sources.hub import HubBenchmark, HubRow, register_hub_benchmark
from omnieval.types import Sample, ScoringInput, TaskSpec

__all__ = ["BENCH", "PROMPT_SUFFIX"]

PROMPT_SUFFIX = "\nAnswer the question using a single word or phrase."
"""lmms-eval's default ``post_prompt`` for DocVQA."""


@register_scorer(
    "docvqa.anls", strict="ANLS with the distance divided by the normalised (not the raw) lengths."
)
def docvqa_anls(inp: ScoringInput, *, strict: bool) -> float:
    """ANLS (threshold 0.5) as the RRC DocVQA script computes it."""
    return anls(inp.response, [str(t) for t in inp.targets], strict=strict)


def _sample(row: HubRow) -> Sample:
    sample_id = BENCH.sample_id(row)
    answers = answer_list(row, "answers", sample_id=sample_id)
    question = str(row.get("question") or "")
    return image_sample(
        row,
        sample_id=sample_id,
        prompt=f"{question}{PROMPT_SUFFIX}",
        targets=answers,
        metadata={},
    )


def _spec() -> TaskSpec:
    return short_answer_spec(
        name="docvqa",
        description="DocVQA (validation): document questions, ANLS (RRC script, threshold 0.5)",
        metric="docvqa.anls",
        alias="anls",
        max_tokens=32,
        source="lmms-lab/DocVQA (DocVQA)",
        licence="Apache-2.0 (lmms-lab card)",
    )


def _example(position: int, config: str | None) -> dict[str, Any]:
    from omnieval.testing.hub_copies import tiny_png

    answers = [["1/8/93", "1-8-93"], ["ITC"], ["$ 1,000"], ["Smith", "Mr. Smith"]]
    return {
        "questionId": str(10000 + position),
        "question": f"What is written in field {position}?",
        "question_types": ["handwritten", "form"][position % 2 :],
        "image": {"bytes": tiny_png(position), "path": f"{position}.png"},
        "docId": 500 + position,
        "ucsf_document_id": f"doc{position}",
        "ucsf_document_page_no": "1",
        "answers": answers[position % len(answers)],
        "data_split": "val",
    }


BENCH = register_hub_benchmark(
    HubBenchmark(
        name="docvqa",
        variants=suffix_variants(PROMPT_SUFFIX),
        dataset="lmms-lab/DocVQA",
        split="validation",
        columns=("questionId", "question", "image", "answers"),
        spec=_spec,
        to_sample=_sample,
        id_column="questionId",
        configs=("DocVQA",),
        modality="image",
        size=5349,
        licence="Apache-2.0 (lmms-lab card)",
        homepage="https://www.docvqa.org/",
        scorer=(
            "EvolvingLMMs-Lab/lmms-eval@75571cfe0fa36ca5ec2e6aa2bb268f9d38295af3:lmms_eval/api/metrics.py "
            "(anls; the RRC DocVQA script's loop)"
        ),
        docs="docs/benchmarks/hub/docvqa.md",
        features={
            "questionId": STRING,
            "question": STRING,
            "question_types": STRINGS,
            "image": IMAGE,
            "docId": {"dtype": "int64", "_type": "Value"},
            "ucsf_document_id": STRING,
            "ucsf_document_page_no": STRING,
            "answers": STRINGS,
            "data_split": STRING,
        },
        example_row=_example,
    )
)
