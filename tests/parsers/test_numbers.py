"""Number reading (textkit) on Russian and English conventions, LaTeX and units."""

from __future__ import annotations

import pytest

from omnieval.textkit import answer_region, find_numbers, parse_number


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("3,5", [3.5]),
        ("0,125", [0.125]),
        ("1,234", [1.234]),  # a lone ",ddd" group reads as a decimal comma (Russian-first)
        ("1 000 000", [1e6]),
        ("12\u00a0345 руб.", [12345.0]),
        ("1,234,567.5", [1234567.5]),
        ("1.234.567", [1234567.0]),
        ("-3.5e-2", [-0.035]),
        ("1,5·10^{3}", [1500.0]),
        ("1.5 \\times 10^{-3}", [0.0015]),
        ("\\dfrac{3}{4}", [0.75]),
        ("½", [0.5]),
        ("$3{,}5$", [3.5]),
        ("\u22127", [-7.0]),
        ("x = 3, y = 7", [3.0, 7.0]),
        ("5 м/с", [5.0]),
        ("4/0", []),
        ("x2 = 4", [4.0]),
        ("нет чисел", []),
    ],
)
def test_find_numbers(text: str, values: list[float]) -> None:
    assert [n.value for n in find_numbers(text)] == pytest.approx(values)


def test_percent_has_two_readings() -> None:
    (n,) = find_numbers("50 %")
    assert n.percent and n.candidates() == (50.0, 0.5)


def test_parse_number_needs_exactly_one() -> None:
    assert parse_number("9,81 м/с²").value == pytest.approx(9.81)  # type: ignore[union-attr]
    assert parse_number("1 или 2") is None
    assert parse_number("") is None


def test_answer_region_prefers_boxed_then_marker() -> None:
    assert answer_region("a \\boxed{1} b \\boxed{\\frac{1}{2}}") == ("\\frac{1}{2}", "boxed")
    assert answer_region("решение 1 2 3. Ответ: 6") == ("6", "marker")
    assert answer_region("6") == ("6", "whole")


def test_huge_input_is_bounded() -> None:
    text = "1 " * 200_000 + "7"
    assert find_numbers(text)[-1].value == 7.0
