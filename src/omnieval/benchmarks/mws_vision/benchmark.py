"""MWS-Vision-Bench's data layout (MTSAIR/MWS-Vision-Bench, the public validation set published as the
``train`` split), its Russian questions as prompts, and the authors' per-type metrics."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from omnieval.benchmarks.hub_vqa import (
    IMAGE,
    STRING,
    STRINGS,
    appended_variants,
    image_sample,
    short_answer_spec,
)
from omnieval.benchmarks.mws_vision.imagefolder import register_imagefolder_reader
from omnieval.benchmarks.mws_vision.scoring import TASK_TYPES, mws_score
from omnieval.metrics.base import register_aggregation, register_metric
from omnieval.sources.hub import HubBenchmark, HubRow, register_hub_benchmark
from omnieval.types import Sample, SampleResult, ScoringInput, TaskSpec

__all__ = ["BENCH"]


@register_metric("mws_vision.score")
def score(inp: ScoringInput) -> float:
    """The authors' score of one answer by its task type (``eval_parallel.process_single_item``)."""
    return mws_score(str(inp.metadata.get("type")), inp.response, list(inp.targets))


@register_aggregation("mws_vision.overall")
def overall(values: Sequence[float], results: Sequence[SampleResult], /) -> float:
    """The leaderboard Overall: the mean of the task-type means (``get_score_ru.get_metrics``)."""
    by_type: defaultdict[str, list[float]] = defaultdict(list)
    for value, result in zip(values, results, strict=True):
        by_type[str(result.metadata.get("type"))].append(value)
    means = [sum(v) / len(v) for v in by_type.values() if v]
    return sum(means) / len(means) if means else 0.0


INSTRUCTIONS = {
    "look": "Внимательно рассмотри изображение и ответь на вопрос.",
    "exact": "Отвечай точно по изображению, без пояснений.",
}
"""Our Russian instructions after the question (``?prompts=`` variants; the published prompt is the bare
question, and some task types want long answers, so none asks for brevity)."""


def _answers(row: HubRow, sample_id: str) -> tuple[Any, ...]:
    value = row.get("answers")
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not value:
        raise row.error(f"needs a non-empty answer list, got {value!r}", field="answers", sample_id=sample_id)
    return tuple(value)


def _sample(row: HubRow) -> Sample:
    sample_id = BENCH.sample_id(row)
    kind = row.get("type")
    if kind not in TASK_TYPES:
        raise row.error(
            f"unknown task type {kind!r} (known: {TASK_TYPES})", field="type", sample_id=sample_id
        )
    answers = _answers(row, sample_id)
    if (
        kind in ("full-page OCR ru", "document parsing ru", "key information extraction ru")
        and len(answers) != 1
    ):
        raise row.error(f"a {kind!r} question needs one answer", field="answers", sample_id=sample_id)
    return image_sample(
        row,
        sample_id=sample_id,
        prompt=str(row.get("question") or ""),
        targets=answers,
        metadata={"type": kind},
    )


def _spec() -> TaskSpec:
    return short_answer_spec(
        name="mws_vision",
        description="MWS-Vision-Bench (public validation): Russian document OCR, the authors' metrics",
        metric="mws_vision.score",
        alias="overall",
        language="ru",
        breakdowns=("type",),
        max_tokens=4096,
        source="MTSAIR/MWS-Vision-Bench",
        licence="CC-BY-4.0 (Hub card; code MIT)",
        aggregate="mws_vision.overall",
    )


def _example(position: int, config: str | None) -> dict[str, Any]:
    from omnieval.testing.hub_copies import tiny_png

    cases: list[tuple[str, str, list[str]]] = [
        ("reasoning VQA ru", "Какая сумма договора?", ["100 000 руб"]),
        (
            "text grounding ru",
            "Найди слово «Итого» и верни рамку [x1, y1, x2, y2].",
            ["10", "20", "110", "60"],
        ),
        (
            "key information extraction ru",
            "Извлеки номер и дату в JSON.",
            [json.dumps({"номер": "12", "дата": "01.02.2024"}, ensure_ascii=False)],
        ),
        ("document parsing ru", "Переведи документ в Markdown.", ["# Договор\nтекст\n## Раздел 1\nпункт"]),
        ("full-page OCR ru", "Распознай весь текст.", ["Договор поставки № 12 от 01.02.2024"]),
    ]
    kind, question, answers = cases[position % len(cases)]
    return {
        "id": str(position),
        "type": kind,
        "dataset_name": "synthetic",
        "question": question,
        "answers": answers,
        "image": {"bytes": tiny_png(position), "path": f"{position}.png"},
    }


BENCH = register_hub_benchmark(
    HubBenchmark(
        name="mws_vision",
        variants=appended_variants(INSTRUCTIONS),
        dataset="MTSAIR/MWS-Vision-Bench",
        split="train",
        columns=("type", "question", "answers", "image"),
        spec=_spec,
        to_sample=_sample,
        modality="image",
        size=2580,
        licence="CC-BY-4.0 (Hub card); scorer MIT",
        homepage="https://github.com/mts-ai/MWS-Vision-Bench",
        scorer="mts-ai/MWS-Vision-Bench@6632d62830fdb692ebe0beca8f4fb60fcceec12f:src/evaluation/eval_parallel.py",
        docs="docs/benchmarks/hub/mws_vision.md",
        features={
            "id": STRING,
            "type": STRING,
            "dataset_name": STRING,
            "question": STRING,
            "answers": STRINGS,
            "image": IMAGE,
        },
        example_row=_example,
    )
)
register_imagefolder_reader(BENCH)
