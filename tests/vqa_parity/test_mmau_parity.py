"""MMAU against the authors' ``string_match`` (``evaluation.py``, vendored)."""

from __future__ import annotations

from omnieval.benchmarks.mmau.scoring import mmau_match
from tests.vqa_parity.cases import rng
from tests.vqa_parity.official import functions

OFFICIAL = functions("mmau/evaluation.py", "string_match")["string_match"]

CHOICE_SETS = [
    ["Man", "Woman", "Child", "Robot"],
    ["A child", "A woman", "An adult man", "A teenager"],
    ["Radio", "Fire truck", "Construction site", "Airplane"],
    ["C major", "C minor", "G major", "A minor"],
    ["Yes", "No"],
    ["1", "2", "3", "4"],
    ["dog barking", "dog", "cat meowing", "bird"],
]


def test_matches_the_authors_rule_on_generated_predictions() -> None:
    r = rng()
    for choices in CHOICE_SETS:
        for answer in choices:
            predictions = ["", "A", "B", "(B)", answer, answer.upper(), f"The answer is {answer}.", "none"]
            predictions += [f"{c} or {answer}" for c in choices] + [
                f"Not {c}, it's {answer}" for c in choices
            ]
            predictions += [" ".join(r.sample(" ".join(choices).split(), 2)) for _ in range(6)]
            for prediction in predictions:
                assert mmau_match(prediction, answer, choices) == OFFICIAL(answer, prediction, choices), (
                    prediction,
                    answer,
                    choices,
                )


def test_quirks() -> None:
    choices = ["A child", "A woman", "An adult man", "A teenager"]
    assert mmau_match("a woman", "A woman", choices)
    assert not mmau_match("B", "A woman", choices)  # a bare letter is not an answer
    assert not mmau_match("a woman, not a child", "A woman", choices)  # a wrong choice's word
    assert not mmau_match("...", "A woman", choices)  # no word at all
