"""MMStar's data layout, prompt and scoring (VLMEvalKit's ``exact_matching``)."""

from __future__ import annotations

import re
from typing import Any

from omnieval.benchmarks.vlmeval import mcq_prompt, mcq_variants
from omnieval.benchmarks.vlmeval.scoring import options_of
from omnieval.sources.hub import HubBenchmark, HubRow, image_ref, prompted_spec, register_hub_benchmark
from omnieval.types import MetricRef, Sample, TaskSpec

__all__ = ["BENCH", "split_question"]

_OPTIONS = re.compile(r"\n?Options:\s*(?=A:)", re.IGNORECASE)
_LETTER = re.compile(r"(?:^|,\s*)([A-H]):\s")


def split_question(text: str) -> tuple[str, tuple[str, ...]]:
    """``"Q?\\nOptions: A: x, B: y"`` → ``("Q?", ("x", "y"))``; letters must run A, B, C… in order."""
    parts = _OPTIONS.split(text, maxsplit=1)
    if len(parts) != 2:
        return text.strip(), ()
    question, block = parts
    # only the marks that continue the A, B, C… run count (a ", B: " inside an option is its text)
    chosen: list[re.Match[str]] = []
    for mark in _LETTER.finditer(block):
        if len(chosen) < 8 and mark.group(1) == "ABCDEFGH"[len(chosen)]:
            chosen.append(mark)
    options = tuple(
        block[mark.end() : chosen[i + 1].start() if i + 1 < len(chosen) else len(block)].strip()
        for i, mark in enumerate(chosen)
    )
    return question.strip(), options


def _sample(row: HubRow) -> Sample:
    sample_id = BENCH.sample_id(row)
    question, options = split_question(str(row.get("question") or ""))
    if len(options) < 2:
        raise row.error(
            "no 'Options: A: …, B: …' block in the question", field="question", sample_id=sample_id
        )
    answer = str(row.get("answer") or "").strip()
    if answer not in options_of(options):
        raise row.error(f"answer {answer!r} is not an option letter", field="answer", sample_id=sample_id)
    return Sample(
        id=sample_id,
        input=mcq_prompt(question, options_of(options)),
        targets=(answer,),
        choices=options,
        media=(image_ref(row, "image", name="image", sample_id=sample_id),),
        metadata={
            "category": row.get("category"),
            "l2_category": row.get("l2_category"),
            "index": row.get("index"),
        },
    )


def _spec() -> TaskSpec:
    return prompted_spec(
        "mmstar",
        description="MMStar (val): vision-indispensable multiple choice, VLMEvalKit rule matching",
        modality="image",
        language="en",
        parser="vlmeval.mcq_rule",
        metric=MetricRef(name="vlmeval.mcq_hit", alias="acc"),
        breakdowns=("category", "l2_category"),
        max_tokens=512,
        source="Lin-Chen/MMStar",
    )


def _example(position: int, config: str | None) -> dict[str, Any]:
    from omnieval.testing.hub_copies import tiny_png

    options = {"A": "a red square", "B": "a blue circle", "C": "a green line", "D": "a yellow star"}
    answer = "ABCD"[position % 4]
    return {
        "index": position,
        "question": "What is shown?\nOptions: " + ", ".join(f"{k}: {o}" for k, o in options.items()),
        "image": {"bytes": tiny_png(position), "path": f"{position}.png"},
        "answer": answer,
        "category": ["coarse perception", "math"][position % 2],
        "l2_category": ["image scene and topic", "numeric commonsense"][position % 2],
        "meta_info": {"source": "synthetic", "split": "val", "image_path": f"{position}.png"},
    }


BENCH = register_hub_benchmark(
    HubBenchmark(
        name="mmstar",
        variants=mcq_variants("en"),
        dataset="Lin-Chen/MMStar",
        split="val",
        columns=("index", "question", "image", "answer", "category", "l2_category"),
        spec=_spec,
        to_sample=_sample,
        files={"": "mmstar.parquet"},
        modality="image",
        size=1500,
        licence="not stated on the Hub card",
        homepage="https://mmstar-benchmark.github.io/",
        scorer="open-compass/VLMEvalKit@18fc37a5337e31eec9c104887728ad14e82a6a85:vlmeval/utils/matching_util.py",
        docs="docs/benchmarks/hub/mmstar.md",
        features={
            "index": {"dtype": "int64", "_type": "Value"},
            "question": {"dtype": "string", "_type": "Value"},
            "image": {"_type": "Image"},
            "answer": {"dtype": "string", "_type": "Value"},
            "category": {"dtype": "string", "_type": "Value"},
            "l2_category": {"dtype": "string", "_type": "Value"},
            "meta_info": {
                "source": {"dtype": "string", "_type": "Value"},
                "split": {"dtype": "string", "_type": "Value"},
                "image_path": {"dtype": "string", "_type": "Value"},
            },
        },
        example_row=_example,
    )
)
