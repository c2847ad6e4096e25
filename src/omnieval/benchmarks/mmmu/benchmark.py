"""MMMU's layout (one config folder per subject), prompt and breakdowns (discipline, subject).

The prompt is the authors' (``mmmu/configs/llava1.5.yaml`` through ``construct_prompt``): the question,
the options as ``(A) …`` lines and the instruction to answer with the letter, or, for an open question,
the single-word-or-phrase instruction. Up to seven images (``image_1`` … ``image_7``) are placed where the
text names them (``<image 1>`` …, in the question or an option); an image the text does not name goes first.
"""

from __future__ import annotations

import ast
from typing import Any

from omnieval.sources.hub import (
    HubBenchmark,
    HubRow,
    image_ref,
    prompted_spec,
    register_hub_benchmark,
    reworded,
)
from omnieval.types import MetricRef, Sample, TaskSpec

__all__ = ["BENCH", "DISCIPLINES", "SUBJECTS", "prompt_text"]

DISCIPLINES: dict[str, tuple[str, ...]] = {
    "Art and Design": ("Art", "Art_Theory", "Design", "Music"),
    "Business": ("Accounting", "Economics", "Finance", "Manage", "Marketing"),
    "Science": ("Biology", "Chemistry", "Geography", "Math", "Physics"),
    "Health and Medicine": (
        "Basic_Medical_Science",
        "Clinical_Medicine",
        "Diagnostics_and_Laboratory_Medicine",
        "Pharmacy",
        "Public_Health",
    ),
    "Humanities and Social Science": ("History", "Literature", "Sociology", "Psychology"),
    "Tech and Engineering": (
        "Agriculture",
        "Architecture_and_Engineering",
        "Computer_Science",
        "Electronics",
        "Energy_and_Power",
        "Materials",
        "Mechanical_Engineering",
    ),
}
SUBJECTS: tuple[str, ...] = tuple(sorted(s for subjects in DISCIPLINES.values() for s in subjects))
"""The 30 config folders, in the authors' evaluation order (alphabetical)."""
_DISCIPLINE_OF = {s: d for d, subjects in DISCIPLINES.items() for s in subjects}
IMAGES = tuple(f"image_{k}" for k in range(1, 8))
MC_INSTRUCTION = "Answer with the option's letter from the given choices directly."
OPEN_INSTRUCTION = "Answer the question using a single word or phrase."
VARIANTS = (
    reworded(
        "letter",
        (MC_INSTRUCTION, "Reply with only the letter of the correct option."),
        (OPEN_INSTRUCTION, "Reply with only the answer: a single word or a short phrase."),
    ),
    reworded(
        "which",
        (MC_INSTRUCTION, "Which option is correct? Give its letter."),
        (OPEN_INSTRUCTION, "Give a brief answer, one word or a phrase."),
    ),
)
"""Our alternative instructions (``?prompts=`` variants; the authors publish only the default)."""


def prompt_text(question: str, options: list[str], question_type: str) -> str:
    """The authors' prompt for one question."""
    if question_type != "multiple-choice":
        return f"{question}\n\n{OPEN_INSTRUCTION}"
    lines = "".join(f"({chr(ord('A') + i)}) {option}\n" for i, option in enumerate(options))
    return f"{question}\n\n{lines}\n\n{MC_INSTRUCTION}"


def _literal_list(row: HubRow, column: str, sample_id: str) -> list[str]:
    raw = row.get(column)
    try:
        value = ast.literal_eval(raw) if isinstance(raw, str) else raw
    except (ValueError, SyntaxError):
        raise row.error(
            f"{column} {str(raw)[:80]!r} is not a list literal", field=column, sample_id=sample_id
        ) from None
    if not isinstance(value, list):
        raise row.error(f"{column} is not a list", field=column, sample_id=sample_id)
    return [str(v) for v in value]


def _gold(row: HubRow, question_type: str, n_options: int, sample_id: str) -> tuple[str, ...]:
    raw = str(row.get("answer") or "").strip()
    if question_type == "multiple-choice":
        if not (len(raw) == 1 and 0 <= ord(raw) - ord("A") < n_options):
            raise row.error(f"answer {raw!r} is not an option letter", field="answer", sample_id=sample_id)
        return (raw,)
    if raw.startswith("[") and raw.endswith("]"):  # several accepted answers, written as a list
        return tuple(_literal_list(row, "answer", sample_id))
    if not raw:
        raise row.error("the answer is empty", field="answer", sample_id=sample_id)
    return (raw,)


def _sample(row: HubRow) -> Sample:
    sample_id = BENCH.sample_id(row)
    question_type = str(row.get("question_type"))
    options = _literal_list(row, "options", sample_id)
    if question_type == "multiple-choice" and len(options) < 2:
        raise row.error(
            "a multiple-choice question with fewer than 2 options", field="options", sample_id=sample_id
        )
    media = tuple(
        image_ref(row, column, name=f"image {column[-1]}", sample_id=sample_id)
        for column in IMAGES
        if row.data.get(column) is not None
    )
    subject = row.config or str(row.data.get("id", "")).split("_", 1)[-1].rsplit("_", 1)[0]
    return Sample(
        id=sample_id,
        input=prompt_text(str(row.get("question")), options, question_type),
        targets=_gold(row, question_type, len(options), sample_id),
        choices=tuple(options) if question_type == "multiple-choice" else None,
        media=media,
        metadata={
            "position": row.position,  # the authors' order, for their random guesses (scoring.official_draws)
            "question_type": question_type,
            "subject": subject,
            "discipline": _DISCIPLINE_OF.get(subject, "unknown"),
            "subfield": row.data.get("subfield"),
            "topic_difficulty": row.data.get("topic_difficulty"),
            "img_type": row.data.get("img_type"),
        },
    )


def _spec() -> TaskSpec:
    return prompted_spec(
        "mmmu",
        description="MMMU (validation): college-level multi-discipline questions, the authors' parsing",
        modality="image",
        language="en",
        parser="mmmu.response",
        metric=MetricRef(name="mmmu.acc", alias="acc"),
        breakdowns=("discipline", "subject"),
        max_tokens=512,
        source="MMMU/MMMU",
        truncated="score_text",  # the authors parse whatever text came back
    )


_FEATURES: dict[str, Any] = {
    "id": {"dtype": "string", "_type": "Value"},
    "question": {"dtype": "string", "_type": "Value"},
    "options": {"dtype": "string", "_type": "Value"},
    "explanation": {"dtype": "string", "_type": "Value"},
    **{column: {"_type": "Image"} for column in IMAGES},
    "img_type": {"dtype": "string", "_type": "Value"},
    "answer": {"dtype": "string", "_type": "Value"},
    "topic_difficulty": {"dtype": "string", "_type": "Value"},
    "question_type": {"dtype": "string", "_type": "Value"},
    "subfield": {"dtype": "string", "_type": "Value"},
}


def _example(position: int, config: str | None) -> dict[str, Any]:
    from omnieval.testing.hub_copies import tiny_png

    subject = config or "Art"
    is_open = position % 4 == 3
    images: dict[str, Any] = dict.fromkeys(IMAGES)
    images["image_1"] = {"bytes": tiny_png(position), "path": None}
    if position % 2:
        images["image_2"] = {"bytes": tiny_png(position + 100), "path": None}
    return {
        "id": f"validation_{subject}_{position + 1}",
        "question": "<image 1> What is shown?" + (" Compare with <image 2>." if position % 2 else ""),
        "options": "[]" if is_open else "['a cat', 'a dog', 'a bird', 'a fish']",
        "explanation": "",
        **images,
        "img_type": "['Photographs']",
        "answer": "42" if is_open else "ABCD"[position % 4],
        "topic_difficulty": "Easy",
        "question_type": "open" if is_open else "multiple-choice",
        "subfield": "Synthetic",
    }


BENCH = register_hub_benchmark(
    HubBenchmark(
        name="mmmu",
        variants=VARIANTS,
        dataset="MMMU/MMMU",
        split="validation",
        columns=("id", "question", "options", "answer", "question_type", *IMAGES),
        optional_columns=("subfield", "topic_difficulty", "img_type"),
        spec=_spec,
        to_sample=_sample,
        id_column="id",
        configs=SUBJECTS,
        modality="image",
        size=900,
        licence="apache-2.0",
        homepage="https://mmmu-benchmark.github.io/",
        scorer="MMMU-Benchmark/MMMU@bb0b95a945998d91dfef37e969e07d49d1139438:mmmu/utils/eval_utils.py",
        docs="docs/benchmarks/hub/mmmu.md",
        features=_FEATURES,
        example_row=_example,
    )
)
