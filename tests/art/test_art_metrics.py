"""The Yes/No protocol: relevance normalisation and relative accuracy over relevant answers only."""

from __future__ import annotations

import pytest

from omnieval.benchmarks.art.metrics import absolute_accuracy, over_relevant, relevant, yes_no
from omnieval.types import SampleResult, ScoringInput


@pytest.mark.parametrize(("text", "expected"), [
    ("Yes", "Yes"), (" no. ", "No"), ("**YES**", "Yes"), ("«Да»", "Yes"), ("Нет!", "No"),
    ("Yes, the bell rings twice.", None), ("Maybe", None), ("", None),
])
def test_yes_no_normalisation(text: str, expected: str | None) -> None:
    assert yes_no(text) == expected


def test_leading_option_accepts_an_explained_answer() -> None:
    assert yes_no("Yes, the bell rings twice.", leading=True) == "Yes"
    assert yes_no("No. It is a cat.", leading=True) == "No"


def _inp(response: str, gold: str) -> ScoringInput:
    return ScoringInput(response=response, prediction=response, targets=(gold,))


def test_relative_accuracy_divides_by_relevant_answers_only() -> None:
    # worked by hand: 5 answers, 4 relevant (Yes/No), 3 of them right -> absolute 3/5, relative 3/4
    cases = [("Yes", "Yes"), ("No", "No"), ("no", "No"), ("Yes", "No"), ("I cannot tell", "Yes")]
    results = []
    for response, gold in cases:
        inp = _inp(response, gold)
        metrics = {"art.relevant": relevant(inp), "art.absolute_accuracy": absolute_accuracy(inp)}
        results.append(SampleResult(task="art.AA", sample_id=response, state="ok", metrics=metrics))
    absolute = [r.metrics["art.absolute_accuracy"] for r in results]
    assert sum(absolute) / len(absolute) == pytest.approx(3 / 5)
    assert sum(r.metrics["art.relevant"] for r in results) / len(results) == pytest.approx(4 / 5)
    assert over_relevant(absolute, results) == pytest.approx(3 / 4)
    assert over_relevant([0.0], [SampleResult(task="t", sample_id="x", state="ok", metrics={"art.relevant": 0.0})]) == 0.0
