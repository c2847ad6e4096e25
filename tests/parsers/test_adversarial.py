"""Runaway and adversarial outputs stay fast: no regex here may backtrack super-linearly."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import pytest

from omnieval.parsers import parsers
from omnieval.textkit import after_marker, answer_region, find_choice, find_numbers, normalize_text
from omnieval.types import Sample

N = 19_000
NASTY = [
    "\\frac{1" + " " * N,
    "\\frac{1}{" + " " * N,
    "Answer" + " " * N + "x",
    "Ответ:" + " \t" * (N // 2),
    "option is" + " " * N,
    " " * N + "B",
    "(" + " " * N,
    "1" + " 000" * (N // 4) + "x",
    "1" + " " * N + "e",
    "**" * (N // 2),
    "```" * (N // 3),
    "{" + "'" * N,
    "[1," * (N // 3),
    "ответ: в " * (N // 9),
]
SAMPLE = Sample(id="x", choices=("10 м/с", "20 м/с", "30 м/с"))
TEXTKIT: list[tuple[str, Callable[[str], object]]] = [
    ("find_numbers", find_numbers),
    ("answer_region", answer_region),
    ("after_marker", after_marker),
    ("normalize_text", normalize_text),
    ("find_choice", lambda t: find_choice(t, choices=SAMPLE.choices)),
    ("find_choice strict", lambda t: find_choice(t, choices=SAMPLE.choices, strict=True)),
]
PARSERS = ["answer_marker", "mc_letter", "number", "json", "python_literal", "answer_string"]


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Load plugins and build lazy tables first, so only the scanning itself is timed."""
    for name in PARSERS:
        parsers.get(name)("x", SAMPLE)
    for _, helper in TEXTKIT:
        helper("x")


@pytest.mark.parametrize("text", NASTY, ids=range(len(NASTY)))
def test_every_text_helper_and_parser_is_fast(text: str) -> None:
    calls: list[tuple[str, Callable[[], object]]] = [(n, lambda f=f: f(text)) for n, f in TEXTKIT]  # type: ignore[misc]
    calls += [(n, lambda n=n: parsers.get(n)(text, SAMPLE)) for n in PARSERS]  # type: ignore[misc]
    for name, call in calls:
        gc.disable()  # time the scan, not a collection of the suite's whole heap falling inside it
        try:
            started = time.perf_counter()
            call()
            spent = time.perf_counter() - started
        finally:
            gc.enable()
        assert spent < 0.5, f"{name} took {spent:.2f} s"
