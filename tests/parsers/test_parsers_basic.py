"""The basic library parsers on messy, real-world answer shapes."""

from __future__ import annotations

import pytest

from omnieval.errors import ParseError
from omnieval.parsers import parsers
from omnieval.types import Parsed, ParseFailure, Sample

RU4 = Sample(id="q1", choices=("Москва", "Париж", "Лондон", "Рим"))


def parse(name: str, text: str, sample: Sample = RU4, **options: object) -> Parsed | ParseFailure:
    return parsers.get(name)(text, sample, **options)


def test_strip_keeps_text_and_records_how() -> None:
    out = parse("strip", "  Париж \n")
    assert out == Parsed(value="Париж", how="strip")


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        ("Думаю... ОТВЕТ: Париж", "Париж", "marker"),
        ("Ответ 5\nещё текст\nОТВЕТ 7", "7", "marker"),  # no colons: the last marker
        ("answer: 42\nmore text\nAnswer - no colon", "42\nmore text\nAnswer - no colon", "marker"),
        ("**Ответ:** Рим", "Рим", "marker"),
        ("Просто Рим", "Просто Рим", "whole"),
        ("Ответьте, пожалуйста", "Ответьте, пожалуйста", "whole"),
    ],
)
def test_answer_marker_takes_text_after_last_marker(text: str, value: str, how: str) -> None:
    out = parse("answer_marker", text)
    assert isinstance(out, Parsed)
    assert (out.value, out.how) == (value, how)


@pytest.mark.parametrize(
    ("text", "letter", "how"),
    [
        ("B", "B", "bare"),
        (" b. ", "B", "bare"),
        ("(B)", "B", "bare"),
        ("**C**", "C", "bare"),
        ("B) Париж", "B", "leading"),
        ("(D) Рим, потому что...", "D", "leading"),
        ("C - Лондон", "C", "leading"),
        ("Answer: B", "B", "marker"),
        ("Ответ: В", "B", "marker"),  # Cyrillic В looks like Latin B
        ("The answer is **C**.", "C", "marker"),
        ("Сначала A кажется верным, но правильный ответ: D", "D", "marker"),
        ("Я бы выбрал (A), он верный", "A", "bracketed"),
        ("Я выбираю вариант (A), он верный", "A", "marker"),
        ("Я думаю, что это Париж", "B", "choice_text"),
    ],
)
def test_mc_letter_lenient_shapes(text: str, letter: str, how: str) -> None:
    out = parse("mc_letter", text)
    assert isinstance(out, Parsed), out
    assert (out.value, out.how) == (letter, how)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "no option letter"),
        ("Ответ: В данном случае трудно сказать", "no option letter"),
        ("Ответ: Б", "no option letter"),  # Б looks like no Latin label: not guessed
        ("(A) или (B)", "ambiguous"),
        ("Москва или Париж", "ambiguous"),
        ("E", "not one of the 4 options"),
        ("А. С. Пушкин", "no option letter"),  # initials are not an option letter
    ],
)
def test_mc_letter_lenient_failures(text: str, why: str) -> None:
    out = parse("mc_letter", text)
    assert isinstance(out, ParseFailure)
    assert why in out.reason


@pytest.mark.parametrize(("text", "letter"), [("B", "B"), ("B.", "B"), (" c ", "C"), ("В", "B"), ("D)", "D")])
def test_mc_letter_strict_accepts_bare_letters(text: str, letter: str) -> None:
    out = parse("mc_letter", text, strict=True)
    assert out == Parsed(value=letter, how="strict")


@pytest.mark.parametrize("text", ["(B)", "Answer: B", "B) Париж", "Думаю, B", "**B**", "BC"])
def test_mc_letter_strict_rejects_anything_else(text: str) -> None:
    assert isinstance(parse("mc_letter", text, strict=True), ParseFailure)


def test_mc_letter_cyrillic_labels() -> None:
    assert parse("mc_letter", "Ответ: Б", labels="АБВГ") == Parsed(value="Б", how="marker")
    # Latin B is the look-alike of Cyrillic В, the third label
    assert parse("mc_letter", "B", labels="АБВГ") == Parsed(value="В", how="bare")


def test_mc_letter_without_choices_uses_all_labels() -> None:
    out = parse("mc_letter", "E", Sample(id="x"), labels="ABCDE")
    assert out == Parsed(value="E", how="bare")


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        ("Ответ: 3,5 м/с", 3.5, "marker:last"),
        ("x = 2, значит y = 1 000 000", 1_000_000.0, "whole:last"),
        ("Итак $\\boxed{\\frac{3}{4}}$, а не 5", 0.75, "boxed:last"),
        ("Ответ: 25%", 25.0, "marker:last:percent"),
        ("−7,5", -7.5, "whole:last"),
    ],
)
def test_number_parser(text: str, value: float, how: str) -> None:
    out = parse("number", text)
    assert isinstance(out, Parsed)
    assert out.value == pytest.approx(value)
    assert out.how == how


def test_number_parser_failure_and_bad_option() -> None:
    assert isinstance(parse("number", "не знаю"), ParseFailure)
    with pytest.raises(ParseError, match="position"):
        parse("number", "1", position="middle")
    assert parse("number", "1 и 2", position="first").value == 1.0  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        ("I think the correct option is B because of the map.", "B"),
        ("**Ответ: C**", "C"),
        ("answer: d", "D"),
        ("The correct answer is: B) Париж", "B"),
        ("Answer: B\nExplanation: option (C) is wrong", "B"),
    ],
)
def test_mc_letter_lenient_more_shapes(text: str, letter: str) -> None:
    out = parse("mc_letter", text)
    assert isinstance(out, Parsed), out
    assert out.value == letter


@pytest.mark.parametrize("text", ["ответ: в 1812 году", "Ответ: С другой стороны, неясно", "B и C"])
def test_mc_letter_lenient_does_not_read_russian_words_as_letters(text: str) -> None:
    assert isinstance(parse("mc_letter", text), ParseFailure)


def test_mc_letter_numeric_options() -> None:
    physics = Sample(id="p", choices=("10 м/с", "20 м/с", "40 м/с", "5 м/с"))
    assert parse("mc_letter", "v = g·t = 10 · 2 = 20", physics) == Parsed(value="B", how="choice_number")
    assert parse("mc_letter", "Ответ: 40,0", physics) == Parsed(value="C", how="choice_number")
    assert isinstance(parse("mc_letter", "Ответ: 30", physics), ParseFailure)
    assert isinstance(parse("mc_letter", "Ответ: 20", physics, strict=True), ParseFailure)


def test_answer_marker_prefers_a_marker_with_colon() -> None:
    out = parse("answer_marker", "Answer: Paris. To answer fully, it is the capital")
    assert out == Parsed(value="Paris. To answer fully, it is the capital", how="marker")
    assert parse("answer_marker", "ответ москва") == Parsed(value="москва", how="marker")


def test_mc_letter_digit_labels() -> None:
    three = Sample(id="d", choices=("кот", "пёс", "ёж"))
    assert parse("mc_letter", "Ответ: 2", three, labels="123") == Parsed(value="2", how="marker")
    assert parse("mc_letter", "3.", three, labels="123", strict=True) == Parsed(value="3", how="strict")
    assert isinstance(parse("mc_letter", "4", three, labels="1234"), ParseFailure)
