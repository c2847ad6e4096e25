"""TextVQA's data layout (lmms-lab/textvqa, validation), prompt and VQA-accuracy metric."""

from __future__ import annotations

from typing import Any

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
from omnieval.benchmarks.textvqa.scoring import VQA_ANSWERS, vqa_accuracy
from omnieval.sources.hub import HubBenchmark, HubRow, register_hub_benchmark
from omnieval.types import Sample, ScoringInput, TaskSpec

__all__ = ["BENCH", "PROMPT_SUFFIX"]

PROMPT_SUFFIX = "\nAnswer the question using a single word or phrase."
"""lmms-eval's default ``post_prompt`` for TextVQA (the question itself is ``str.capitalize``-d)."""


@register_scorer(
    "textvqa.vqa_accuracy", strict="VQA accuracy with every stray period removed (no 32-replacement cap)."
)
def textvqa_accuracy(inp: ScoringInput, *, strict: bool) -> float:
    """VQA accuracy over the ten answers with the EvalAI processor (mmf's TextVQA evaluator)."""
    return vqa_accuracy(inp.response, [str(t) for t in inp.targets], strict=strict)


def _sample(row: HubRow) -> Sample:
    sample_id = BENCH.sample_id(row)
    answers = answer_list(row, "answers", sample_id=sample_id, at_least=VQA_ANSWERS)
    if len(answers) != VQA_ANSWERS:
        raise row.error(
            f"needs {VQA_ANSWERS} answers, got {len(answers)}", field="answers", sample_id=sample_id
        )
    question = str(row.get("question") or "")
    return image_sample(
        row,
        sample_id=sample_id,
        prompt=f"{question.capitalize()}{PROMPT_SUFFIX}",
        targets=answers,
        metadata={},
    )


def _spec() -> TaskSpec:
    return short_answer_spec(
        name="textvqa",
        description="TextVQA (validation): scene-text questions, VQA accuracy (mmf's evaluator)",
        metric="textvqa.vqa_accuracy",
        alias="accuracy",
        max_tokens=32,
        source="lmms-lab/textvqa",
        licence="CC-BY-4.0 (TextVQA)",
    )


def _example(position: int, config: str | None) -> dict[str, Any]:
    from omnieval.testing.hub_copies import tiny_png

    pools = [["coca cola"] * 6 + ["coke"] * 4, ["stop"] * 10, ["two"] * 3 + ["2"] * 3 + ["ii"] * 4]
    return {
        "image_id": f"img{position}",
        "question_id": 34602 + position,
        "question": f"what does sign {position} say?",
        "question_tokens": ["what", "does", "sign", "say"],
        "image": {"bytes": tiny_png(position), "path": f"{position}.jpg"},
        "image_width": 2,
        "image_height": 2,
        "flickr_original_url": "",
        "flickr_300k_url": "",
        "answers": pools[position % len(pools)],
        "image_classes": ["sign"],
        "set_name": "val",
        "ocr_tokens": ["stop"],
    }


BENCH = register_hub_benchmark(
    HubBenchmark(
        name="textvqa",
        variants=suffix_variants(PROMPT_SUFFIX),
        dataset="lmms-lab/textvqa",
        split="validation",
        columns=("question_id", "question", "image", "answers"),
        spec=_spec,
        to_sample=_sample,
        id_column="question_id",
        modality="image",
        size=5000,
        licence="CC-BY-4.0 (TextVQA)",
        homepage="https://textvqa.org/",
        scorer="facebookresearch/mmf@b0ffc7fba39f210f833c127362146aec01a2f259:mmf/utils/m4c_evaluators.py",
        docs="docs/benchmarks/hub/textvqa.md",
        features={
            "image_id": STRING,
            "question_id": {"dtype": "int32", "_type": "Value"},
            "question": STRING,
            "question_tokens": STRINGS,
            "image": IMAGE,
            "image_width": {"dtype": "int32", "_type": "Value"},
            "image_height": {"dtype": "int32", "_type": "Value"},
            "flickr_original_url": STRING,
            "flickr_300k_url": STRING,
            "answers": STRINGS,
            "image_classes": STRINGS,
            "set_name": STRING,
            "ocr_tokens": STRINGS,
        },
        example_row=_example,
    )
)
