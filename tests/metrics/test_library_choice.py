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
