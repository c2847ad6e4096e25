"""Spoken-text normalisation and the CER/WER it feeds, on values worked by hand."""

from __future__ import annotations

import pytest

from omnieval.benchmarks.speech.sentences import KINDS, tts_sentences
from omnieval.metrics.library.speech import cer, edit_distance, intelligibility, normalize_spoken, spoken_wer
from omnieval.types import ScoringInput


def _inp(answer: str, *targets: str) -> ScoringInput:
    return ScoringInput(response=answer, prediction=answer, targets=targets)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ёлка, ЁЖ!", "елка еж"),
        ("В библиотеке 9111 книг.", "в библиотеке девять тысяч сто одиннадцать книг"),
        ("В библиотеке 9,111 книг", "в библиотеке девять тысяч сто одиннадцать книг"),  # Whisper's grouping
        ("1 000 рублей", "одна тысяча рублей"),
        ("3,5 кг", "три пять кг"),  # a decimal comma: two numbers, as spoken part by part
        ("Дата 12.04.2021", "дата двенадцать четыре две тысячи двадцать один"),
        ("50% of 21", "fifty percent of twenty one"),
        ("In 1995", "in one thousand nine hundred and ninety five"),
    ],
)
def test_normalisation(text: str, expected: str) -> None:
    assert normalize_spoken(text) == expected


def test_edit_distance_and_rates_by_hand() -> None:
    assert edit_distance("кот", "кит") == 1 and edit_distance("", "abc") == 3
    assert edit_distance(["a", "b", "c"], ["a", "c"]) == 1
    # "кот спит" vs "кит спит": 1 substitution over 8 characters (space counted)
    assert cer(_inp("Кит спит.", "Кот спит")) == pytest.approx(1 / 8)
    assert intelligibility(_inp("Кит спит.", "Кот спит")) == pytest.approx(7 / 8)
    assert spoken_wer(_inp("Кит спит.", "Кот спит")) == pytest.approx(1 / 2)
    # digits in the transcript, words in the reference: the same after normalisation
    assert cer(_inp("в классе 25 учеников", "В классе двадцать пять учеников.")) == 0.0
    # nothing heard is every character wrong, never a match; runaway insertions are capped at 1
    assert cer(_inp("", "Кот спит")) == 1.0 and cer(_inp("а" * 100, "кот")) == 1.0
    assert cer(_inp("кот спит", "собака лает", "кот спит")) == 0.0  # the best gold


def test_tts_ru_set_is_seeded_distinct_and_covers_every_kind(tmp_path) -> None:
    import json

    path = tts_sentences(tmp_path / "a", language="ru", n=240, seed=0)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 240 and len({r["text"] for r in rows}) == 240
    assert {r["kind"] for r in rows} == set(KINDS)
    assert all(any(ch.isdigit() for ch in r["text"]) for r in rows if r["kind"] in ("numbers", "dates"))
    again = tts_sentences(tmp_path / "b", language="ru", n=240, seed=0).read_text(encoding="utf-8")
    other = tts_sentences(tmp_path / "c", language="ru", n=240, seed=1).read_text(encoding="utf-8")
    assert again == path.read_text(encoding="utf-8") and other != again
