"""numeric_match, token_f1, rouge_l, bleu, chrf and wer on hand-worked cases."""

from __future__ import annotations

import pytest

from omnieval.errors import MetricError
from omnieval.metrics import metrics
from omnieval.metrics.library.overlap import lcs_length
from omnieval.types import ScoringInput


def score(
    name: str, response: str, targets: tuple[object, ...], prediction: object = None, **opts: object
) -> float:
    value = metrics.get(name).fn(
        ScoringInput(response=response, prediction=prediction, targets=targets), **opts
    )
    assert isinstance(value, float)
    return value


@pytest.mark.parametrize(
    ("response", "target", "expected"),
    [
        ("Ответ: 3,5 м/с", "3.5", 1.0),
        ("v = 2 м/с, значит ответ 3.50", "3,5 м/с", 1.0),
        ("Итого $\\boxed{\\frac{1}{2}}$", "0.5", 1.0),
        ("Ответ: 1 000 000 руб.", "1000000", 1.0),
        ("Ответ: 25%", "0.25", 1.0),
        ("Ответ: 25%", "25", 1.0),
        ("Ответ: 3", "3.5", 0.0),
        ("Ответ: 0.333", "1/3", 0.0),
        ("не знаю", "3", 0.0),
        ("", "3", 0.0),
        ("Ответ: −2", "-2", 1.0),
    ],
)
def test_numeric_match(response: str, target: str, expected: float) -> None:
    assert score("numeric_match", response, (target,)) == expected


def test_numeric_match_tolerance_and_prediction() -> None:
    assert score("numeric_match", "Ответ: 0.333", ("1/3",), rel_tol=0.01) == 1.0
    assert score("numeric_match", "ignored", (9.81,), prediction=9.8, abs_tol=0.05) == 1.0
    assert score("numeric_match", "ignored", (9.81,), prediction=9.8) == 0.0


def test_numeric_match_bad_reference_and_options() -> None:
    with pytest.raises(MetricError, match="not a single number"):
        score("numeric_match", "3", ("три",))
    with pytest.raises(MetricError, match="tolerances"):
        score("numeric_match", "3", ("3",), rel_tol=-1)


@pytest.mark.parametrize(
    ("response", "target", "expected"),
    [
        ("Москва столица России", "столица — Москва", 0.8),  # P=2/3, R=1
        ("The capital is Moscow", "Moscow", 2 * (1 / 3) / (1 + 1 / 3)),  # 'the' dropped: P=1/3, R=1
        ("Ёжик", "ежик", 1.0),
        ("", "", 1.0),
        ("", "Москва", 0.0),
        ("Париж", "Москва", 0.0),
    ],
)
def test_token_f1(response: str, target: str, expected: float) -> None:
    assert score("token_f1", response, (target,)) == pytest.approx(expected)


def test_lcs_and_rouge_l_on_cyrillic() -> None:
    assert lcs_length(["a", "b", "c", "d"], ["a", "c", "d", "x"]) == 3
    assert lcs_length([], ["a"]) == 0
    # LCS("мама мыла раму", "мама раму мыла") = 2 → P = R = F = 2/3
    assert score("rouge_l", "мама раму мыла", ("Мама мыла раму.",)) == pytest.approx(2 / 3)
    assert score("rouge_l", "кот", ("собака",)) == 0.0
    assert score("rouge_l", "x", ("нет", "x")) == 1.0


def test_bleu_and_chrf_scaled_to_unit_interval() -> None:
    import sacrebleu

    hyp, ref = "кошка сидит на коврике у двери", "кошка сидела на коврике у двери"
    assert score("bleu", ref, (ref,)) == pytest.approx(1.0)
    assert score("bleu", "совсем другое", (ref,)) == pytest.approx(0.0, abs=0.05)
    expected = sacrebleu.sentence_bleu(hyp, [ref]).score / 100  # independent path, default settings
    assert score("bleu", hyp, (ref,)) == pytest.approx(expected, abs=1e-9)
    assert 0.0 < expected < 1.0
    assert score("chrf", ref, (ref,)) == pytest.approx(1.0)
    partial = score("chrf", hyp, (ref,))
    assert 0.5 < partial < 1.0
    assert score("chrf", hyp, (ref,), word_order=2) != partial


@pytest.mark.parametrize(
    ("response", "target", "expected"),
    [
        ("кот сидел на ковре", "Кот сидит на ковре.", 0.25),
        ("кот сидит на ковре", "кот сидит на ковре", 0.0),
        ("раз два три четыре пять шесть", "раз", 1.0),  # WER 5 capped at 1
        ("", "", 0.0),
        ("", "слово", 1.0),
    ],
)
def test_wer(response: str, target: str, expected: float) -> None:
    assert score("wer", response, (target,)) == pytest.approx(expected)


def test_wer_is_lower_is_better() -> None:
    assert metrics.get("wer").higher_is_better is False
    assert metrics.get("bleu").higher_is_better is True
