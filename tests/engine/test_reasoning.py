from __future__ import annotations

import pytest

from omnieval.runner import split_reasoning


@pytest.mark.parametrize(
    ("text", "answer", "reasoning"),
    [
        ("plain answer", "plain answer", None),
        ("<think>2+2=4</think>\nОтвет: 4", "Ответ: 4", "2+2=4"),
        ("<THINK>a</THINK>b<think>c</think>d", "bd", "a\n\nc"),
        ("hidden start</think> B", "B", "hidden start"),
        ("<think>cut off before the end", "", "cut off before the end"),
        ("<reasoning>r</reasoning>x", "x", "r"),
        ("a < b and c > d", "a < b and c > d", None),
    ],
)
def test_split_reasoning(text: str, answer: str, reasoning: str | None) -> None:
    assert split_reasoning(text) == (answer, reasoning)
