"""Verdict parsers on real-looking judge outputs: extra text, Markdown, tags, two verdicts, bad scores."""

from __future__ import annotations

import pytest

from omnieval.parsers import parsers
from omnieval.types import Sample

S = Sample(id="1")


def _parse(name: str, text: str, **options: object) -> object:
    out = parsers.get(name)(text, S, **options)
    return out.value if out.ok else f"FAIL:{out.reason}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1),
        (" 0\n", 0),
        ("**1**", 1),
        ("`0`", 0),
        ("Оценка: 1", 1),
        ("**Вердикт:** 0\n\nОтвет модели не совпадает с эталоном.", 0),
        ("1 — ответ модели совпадает с правильным по смыслу.", 1),
        ("Ответ верный, так как в нём 3 яблока.\nScore: 1", 1),
        ("<think>Сравним 2 ответа...</think>\n0", 0),
        ("<verdict>1", 1),  # a missing end tag
        ("2", 2),  # an integer outside 0/1 is returned: the judge stage's scale check rejects it
    ],
)
def test_judge_binary_reads_the_verdict(text: str, expected: int) -> None:
    assert _parse("judge_binary", text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("Да, ответ верный.", "no numeric verdict"),
        ("Yes", "no numeric verdict"),
        ("1\n0", "2 different verdicts"),
        ("Оценка: 1\nИтоговая оценка: 0", "2 different verdicts"),
        ("0.5", "not an integer"),
        ("<think>рассуждаю, рассуждаю", "cut off"),
    ],
)
def test_judge_binary_failures_say_why(text: str, why: str) -> None:
    result = _parse("judge_binary", text)
    assert isinstance(result, str) and result.startswith("FAIL:") and why in result


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Rating: [[7]]", 7),
        ("The response is helpful and accurate.\n\nScore: 8", 8),
        ("**Оценка:** 7/10", 7),
        ("<score>9</score>", 9),
        ("<score>6", 6),  # missing end tag
        ("## Final score: 10\nОбоснование: всё верно", 10),
        ("3\nThe answer misses two of the five criteria.", 3),
        ("11", 11),  # out of range: left to the stage's scale check
    ],
)
def test_judge_score_reads_scores(text: str, expected: int) -> None:
    assert _parse("judge_score", text) == expected


def test_judge_score_non_integer_and_two_scores() -> None:
    assert "not an integer" in str(_parse("judge_score", "Score: 7.5"))
    assert _parse("judge_score", "Score: 7,5", integer=False) == 7.5
    assert "2 different verdicts" in str(_parse("judge_score", "[[7]] ... [[8]]"))
    assert _parse("judge_score", "[[7]] и ещё раз [[7]]") == 7
