"""MMBench's layout, prompt (hint, question, lettered options) and CircularEval scoring.

The published dev splits hold every rotation of a question as its own row: ``index`` is the original's
index plus a multiple of 1,000,000 (VLMEvalKit's ``g_index = index % 1e6``). A question counts only when
each of its rotations is answered right. Empty options are written ``nan`` in the source TSVs; a cell
that is null, empty or ``nan`` is no option (VLMEvalKit's ``pd.isna``), likewise the hint.
"""

from __future__ import annotations

from typing import Any

from omnieval.benchmarks.vlmeval import mcq_prompt, mcq_variants
from omnieval.sources.hub import (
    HubBenchmark,
    HubRow,
    hub_benchmarks,
    image_ref,
    prompted_spec,
    register_hub_benchmark,
)
from omnieval.types import MetricRef, Sample, TaskSpec

__all__ = ["MMBENCH", "MMBENCH_RU", "present"]

CIRCULAR_STRIDE = 1_000_000
SCORER = (
    "open-compass/VLMEvalKit@e8e78f05f3080fe28154f2130321f17951c3be94:"
    "vlmeval/dataset/utils/multiple_choice.py (mcq_circular_eval) + vlmeval/utils/matching_util.py"
)
LETTERS = ("A", "B", "C", "D")
_L2 = ("L2-category", "l2-category")


def present(value: Any) -> str | None:
    """A cell's text, or ``None`` where pandas would read NaN (null, empty, ``nan``)."""
    if value is None:
        return None
    text = str(value)
    return None if text in ("", "nan", "NaN") else text


def _index(row: HubRow) -> int:
    raw = row.get("index")
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise row.error(f"index {raw!r} is not an integer", field="index") from None


def _bench(name: str) -> HubBenchmark:
    return hub_benchmarks.get(name)


def _to_sample(bench: HubBenchmark, row: HubRow, lang: str) -> Sample:
    sample_id = bench.sample_id(row)
    index = _index(row)
    options = {k: text for k in LETTERS if (text := present(row.data.get(k))) is not None}
    answer = str(row.get("answer") or "").strip()
    if answer not in options:
        raise row.error(
            f"answer {answer!r} is not one of the options {sorted(options)}",
            field="answer",
            sample_id=sample_id,
        )
    if list(options) != list(LETTERS[: len(options)]):
        raise row.error(
            f"options {sorted(options)} are not consecutive from A", field="A", sample_id=sample_id
        )
    l2 = next((row.data[c] for c in _L2 if c in row.data), None)
    return Sample(
        id=sample_id,
        input=mcq_prompt(str(row.get("question")), options, hint=present(row.get("hint")), lang=lang),
        targets=(answer,),
        choices=tuple(options.values()),
        media=(image_ref(row, "image", name="image", sample_id=sample_id),),
        metadata={
            "category": row.get("category"),
            "l2_category": l2,
            "split": row.data.get("split"),
            "source": row.data.get("source"),
            "circular_group": index % CIRCULAR_STRIDE,
            "circular_main": index < CIRCULAR_STRIDE,
        },
    )


def _spec(name: str, lang: str, dataset: str) -> TaskSpec:
    return prompted_spec(
        name,
        description=f"MMBench dev ({lang}): VLMEvalKit rule matching with CircularEval ({dataset})",
        modality="image",
        language=lang,
        parser="vlmeval.mcq_rule",
        metric=MetricRef(name="vlmeval.mcq_hit", alias="acc", aggregate="vlmeval.circular"),
        breakdowns=("l2_category", "category"),
        max_tokens=512,
        source=dataset,
        metadata={"circular": True},
    )


_FEATURES: dict[str, Any] = {
    "index": {"dtype": "int64", "_type": "Value"},
    "question": {"dtype": "string", "_type": "Value"},
    "hint": {"dtype": "string", "_type": "Value"},
    "answer": {"dtype": "string", "_type": "Value"},
    **{k: {"dtype": "string", "_type": "Value"} for k in LETTERS},
    "category": {"dtype": "string", "_type": "Value"},
    "image": {"_type": "Image"},
    "source": {"dtype": "string", "_type": "Value"},
    "comment": {"dtype": "string", "_type": "Value"},
    "split": {"dtype": "string", "_type": "Value"},
}

_ABILITIES = (
    ("attribute_recognition", "Finegrained Perception (instance-level)"),
    ("image_scene", "Coarse Perception"),
    ("future_prediction", "Logic Reasoning"),
)


def _example(l2_column: str, russian: bool) -> Any:
    def example(position: int, config: str | None) -> dict[str, Any]:
        from omnieval.testing.hub_copies import tiny_png

        question, rotation = divmod(position, 3)  # three rotations of each question, rotation 0 first
        texts = ["красный", "синий", "зелёный"] if russian else ["red", "blue", "green"]
        shifted = texts[rotation:] + texts[:rotation]
        category, l2 = _ABILITIES[question % len(_ABILITIES)]
        return {
            "index": question + rotation * CIRCULAR_STRIDE,
            "question": "Какой цвет?" if russian else "Which colour?",
            "hint": "nan" if question % 2 else ("Подсказка" if russian else "A hint"),
            "answer": LETTERS[shifted.index(texts[0])],
            "A": shifted[0],
            "B": shifted[1],
            "C": shifted[2],
            "D": "nan",
            "category": category,
            "image": {"bytes": tiny_png(question), "path": None},
            "source": "synthetic",
            l2_column: l2,
            "comment": "nan",
            "split": "dev",
        }

    return example


def _register(name: str, dataset: str, lang: str, l2_column: str, **layout: Any) -> HubBenchmark:
    """One MMBench variant: the same columns, prompt and scoring; its own repository, layout and language."""
    return register_hub_benchmark(
        HubBenchmark(
            name=name,
            dataset=dataset,
            split="dev",
            columns=("index", "question", "hint", "answer", *LETTERS, "category", "image"),
            optional_columns=(*_L2, "split", "source"),
            spec=lambda: _spec(name, lang, dataset),
            to_sample=lambda row: _to_sample(_bench(name), row, lang),
            id_column="index",
            modality="image",
            scorer=SCORER,
            docs="docs/benchmarks/hub/mmbench.md",
            features={**_FEATURES, l2_column: {"dtype": "string", "_type": "Value"}},
            example_row=_example(l2_column, russian=lang == "ru"),
            variants=mcq_variants(lang),
            **layout,
        )
    )


MMBENCH = _register(
    "mmbench",
    "lmms-lab/MMBench",
    "en",
    "L2-category",
    configs=("en",),
    size=4329,
    licence="not stated on the Hub card (MMBench: Apache-2.0 code, research use)",
    homepage="https://github.com/open-compass/MMBench",
)
MMBENCH_RU = _register(
    "mmbench_ru",
    "deepvk/MMBench-ru",
    "ru",
    "l2-category",
    files={"": "mmbench_ru_dev.parquet"},
    size=3910,
    licence="apache-2.0",
    homepage="https://huggingface.co/datasets/deepvk/MMBench-ru",
)
