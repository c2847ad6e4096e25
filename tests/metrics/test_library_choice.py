"""MARKER MC metrics: strict vs lenient accuracy reported apart, and format compliance."""

from __future__ import annotations

import pytest

from omnieval.errors import MetricError
from omnieval.metrics import metrics
from omnieval.types import ScoringInput

CHOICES = ("Суворов", "Кутузов", "Багратион", "Барклай-де-Толли")


def run(name: str, response: str, target: object = "B", **opts: object) -> float:
    inp = ScoringInput(response=response, targets=(target,), choices=CHOICES)
    value = metrics.get(name).fn(inp, **opts)
    assert isinstance(value, float)
    return value


@pytest.mark.parametrize(
    ("response", "strict", "lenient", "compliant"),
    [
        ("B", 1.0, 1.0, 1.0),
        ("В", 1.0, 1.0, 1.0),  # Cyrillic look-alike of B
        ("C", 0.0, 0.0, 1.0),  # wrong but well-formed
        ("Ответ: B", 0.0, 1.0, 0.0),
        ("Думаю, это Кутузов, потому что он командовал при Бородино.", 0.0, 1.0, 0.0),
        ("(B) Кутузов", 0.0, 1.0, 0.0),
        ("", 0.0, 0.0, 0.0),
        ("E", 0.0, 0.0, 0.0),  # only four options
    ],
)
def test_strict_and_lenient_are_separate(
    response: str, strict: float, lenient: float, compliant: float
) -> None:
    assert run("mc_strict_accuracy", response) == strict
    assert run("mc_lenient_accuracy", response) == lenient
    assert run("format_compliance", response) == compliant


@pytest.mark.parametrize("target", ["B", "b", "В", 1, "Кутузов", " кутузов "])
def test_gold_may_be_label_index_or_option_text(target: object) -> None:
    assert run("mc_strict_accuracy", "B", target) == 1.0


def test_cyrillic_labels() -> None:
    assert run("mc_lenient_accuracy", "Ответ: Б", "Б", labels="АБВГ") == 1.0
    assert run("mc_strict_accuracy", "Б", 1, labels="АБВГ") == 1.0


def test_unusable_gold_is_an_error() -> None:
    with pytest.raises(MetricError, match="names an option"):
        run("mc_strict_accuracy", "B", "Наполеон")
    with pytest.raises(MetricError, match="names an option"):
        run("mc_lenient_accuracy", "B", 7)


@pytest.mark.parametrize(
    "refusal", ["Нет правильного варианта", "Не знаю ответа", "Нет ответа.", "Затрудняюсь с выбором варианта"]
)
def test_a_refusal_never_scores_option_a(refusal: str) -> None:
    # the final -а of вариантА / ответА used to be folded onto option A (issue 19 §3)
    assert run("mc_lenient_accuracy", refusal, target="A") == 0.0
    assert run("mc_strict_accuracy", refusal, target="A") == 0.0


@pytest.mark.parametrize(
    ("response", "lenient"),
    [
        ("Скорее всего B, но я не уверен", 1.0),  # one Latin letter standing alone
        ("Рассуждение: ... Итак, B", 1.0),
        ("B\u200b", 1.0),  # zero-width space after the letter
        ("C C", 0.0),  # read as C (not the gold B): it must be found, and it is not B
        ("B, потому что A не подходит", 0.0),  # two lone letters: ambiguous, not guessed
        ("Вариант Бета", 0.0),  # a marker word then a Cyrillic word: no letter
    ],
)
def test_lenient_finds_a_lone_letter(response: str, lenient: float) -> None:
    assert run("mc_lenient_accuracy", response) == lenient


def test_a_repeated_letter_is_that_letter() -> None:
    assert run("mc_lenient_accuracy", "C C", target="C") == 1.0


@pytest.mark.parametrize(
    ("response", "strict"),
    [
        ("B", 1.0),
        ("B.", 1.0),
        ("B\u200b", 1.0),
        ("(B)", 0.0),
        ("**B**", 0.0),
        ("[B]", 0.0),
        ("Ответ: B", 0.0),
    ],
)
def test_strict_is_letter_only(response: str, strict: float) -> None:
    # MARKER's article: an answer that is not "a clear choice (A, B, C or D)" is not counted
    assert run("mc_strict_accuracy", response) == strict
    assert run("mc_lenient_accuracy", response) == 1.0
