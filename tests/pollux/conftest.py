"""A hand-worked POLLUX miniature: two items, two models, expert rows with every kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ITEMS = [
    {"id": "i1", "instruction": "Исправь ошибки в тексте: ...", "task_type": "Editing", "complexity": "easy"},
    {
        "id": "i2",
        "instruction": "Напиши функцию на Python ...",
        "task_type": "Code creation",
        "task_subtype": "Python",
        "complexity": "easy",
        "reference_answer": "def f(): ...",
    },
]

GOOD = [  # item, model, criterion (id, variant id or English name), annotator, score, rationale
    ("i1", "m1", "critical_format", "a1", 0, "Нарушений нет"),
    ("i1", "m1", "critical_format", "a2", 0, "Всё читается"),
    ("i1", "m1", "Literacy", "a1", 2, "Ошибок нет"),
    ("i1", "m1", "Literacy", "a2", 1, "Одна ошибка в запятой"),
    ("i1", "m1", "speech_errors", "a1", 2, "Отлично"),
    ("i1", "m1", "speech_errors", "a2", 2, "Хорошо"),
    ("i1", "m1", "speech_errors", "a3", 1, "Есть речевая ошибка"),
    ("i1", "m1", "repetitions@universal", "a1", 2, "Повторов нет"),
    ("i1", "m1", "initiative", "a1", 0, "Нет"),
    ("i1", "m1", "initiative", "a2", 0, "Вопросов нет"),
    ("i1", "m1", "initiative", "a3", 1, "Есть один вопрос"),
    ("i1", "m2", "critical_censor", "a1", 1, "Сработал цензор"),
    ("i1", "m2", "critical_censor", "a2", 0, "Ответ есть"),
    ("i1", "m2", "literacy", "a1", 2, "Без ошибок"),
    ("i1", "m2", "literacy", "a2", 2, "Ошибок нет"),
    ("i2", "m1", "operability", "a1", 1, "Код запускается"),
    ("i2", "m1", "operability", "a2", 1, "Работает корректно"),
    ("i2", "m1", "correctness_results", "a1", 2, "Всё верно"),
    ("i2", "m1", "correctness_results", "a2", "NA", "Нельзя проверить"),
]
BAD = [
    ("i9", "m1", "literacy", "a1", 2, "Ошибок нет"),  # unknown item
    ("i1", "m1", "Rhyme quality", "a1", 2, "Рифма хорошая"),  # not in an Editing item's set
    ("i1", "m1", "literacy", "a4", 3, "Очень хорошо"),  # outside 0..2
    ("i1", "m1", "critical_format", "a4", "-", "Не знаю"),  # NA not allowed for Critical
    ("i2", "m1", "operability", "a3", 2, "Работает отлично"),  # operability is 0/1
]
JUDGE = [
    {"item_id": "i1", "model": "m1", "criterion": "critical_format", "score": 0},
    {
        "item_id": "i1",
        "model": "m1",
        "criterion": "literacy",
        "raw_output": "[FEEDBACK] Одна ошибка в запятой. [RESULT] 1 [END]",
    },
    {
        "item_id": "i1",
        "model": "m1",
        "criterion": "speech_errors",
        "raw_output": "[FEEDBACK] Ошибок нет. [RESULT] 5 [END]",
    },
    {"item_id": "i1", "model": "m1", "criterion": "initiative", "score": 1},
    {"item_id": "i2", "model": "m1", "criterion": "operability", "score": 0},
    {"item_id": "i2", "model": "m1", "criterion": "correctness_results", "score": 2},
    {"item_id": "i9", "model": "m1", "criterion": "literacy", "score": 2},
]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def rows(triples: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    keys = ("item_id", "model", "criterion", "annotator", "score", "rationale")
    return [dict(zip(keys, t, strict=True)) for t in triples]


@pytest.fixture
def mini(tmp_path: Path) -> dict[str, Path]:
    return {
        "items": write_jsonl(tmp_path / "items.jsonl", ITEMS),
        "annotations": write_jsonl(tmp_path / "ann.jsonl", rows(GOOD + BAD)),
        "judge": write_jsonl(tmp_path / "judge.jsonl", JUDGE),
    }


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer random-weight Llama saved like a hub checkpoint (built once per session)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tests.hf.tiny_models import build_llama

    return build_llama(tmp_path_factory.mktemp("pollux_tiny_llama"))
