"""MMMU's response parsing and scoring, written from the behaviour of the authors' ``eval_utils.py``
(MMMU-Benchmark/MMMU, Apache-2.0); tests run the original beside it (tests/benchmarks_hub/vendor/mmmu/).

Quirks kept by default (docs/benchmarks/hub/mmmu.md): a multiple-choice response in which no letter
or option text is found gets a random letter, drawn as the authors' ``main_parse_and_eval.py`` draws it:
from one ``random.seed(42)`` stream, consumed in their order (subjects in ``CAT_SHORT2LONG`` order, rows
in file order) by exactly the samples that reach the draw. That needs the whole task, so the parse
draws a stand-in letter per sample (``Random("42:<id>")``) and :func:`official_draws`, the parser's
settle step, replaces every guess when the run is aggregated. Open answers are searched in lower-cased
text where a sentence split meant for capitals never fires; a one-letter gold answer matches only next
to a space; numbers are compared rounded to 2 decimals.
``--strict-metrics`` (``mmmu.response_strict``) makes a response with no answer a parse failure.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from omnieval.metrics.base import register_metric
from omnieval.parsers.base import register_parser
from omnieval.types import Parsed, ParseFailure, ParseOutcome, Sample, ScoringInput

__all__ = [
    "choose_letter",
    "is_correct",
    "normalize",
    "numbers_in",
    "official_draws",
    "open_candidates",
    "response",
    "response_strict",
]

_EDGE_PUNCTUATION = (",", ".", "!", "?", ";", ":", "'")
_KEY_MARKERS = ("could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result ")
_TRIVIAL = {":", ",", ".", "!", "?", ";", "'"}
_WITH_COMMAS = re.compile(r"-?\b\d{1,3}(?:,\d{3})+\b")
_SCIENTIFIC = re.compile(r"-?\d+(?:\.\d+)?[eE][+-]?\d+")
_SIMPLE = re.compile(r"-?(?:\d+\.\d+|\.\d+|\d+\b)(?![eE][+-]?\d+)(?![,\d])")


def _last_position(text: str, needles: Mapping[str, str], candidates: list[str]) -> str:
    """The candidate whose needle occurs last (the first such candidate on a tie)."""
    best, best_at = candidates[0], text.rfind(needles[candidates[0]])
    for letter in candidates[1:]:
        at = text.rfind(needles[letter])
        if at > best_at:
            best, best_at = letter, at
    return best


def choose_letter(text: str, options: Mapping[str, str]) -> tuple[str | None, str]:
    """``(letter, how)``: ``(A)`` marks first, then a letter between spaces, then (for responses over
    five words) option texts; the last one written wins among several; ``None`` when nothing matched."""
    for mark in _EDGE_PUNCTUATION:
        text = text.strip(mark)
    padded = f" {text} "
    letters = list(options)
    bracketed = [x for x in letters if f"({x})" in padded]
    if bracketed:
        if len(bracketed) == 1:
            return bracketed[0], "bracket"
        return _last_position(padded, {x: f"({x})" for x in letters}, bracketed), "bracket:last"
    spaced = [x for x in letters if f" {x} " in padded]
    if spaced:
        if len(spaced) == 1:
            return spaced[0], "letter"
        return _last_position(padded, {x: f" {x} " for x in letters}, spaced), "letter:last"
    if len(padded.split()) > 5:
        lowered = padded.lower()
        texts = {x: str(options[x]).lower() for x in letters}
        found = [x for x in letters if texts[x] in lowered]
        if len(found) == 1:
            return found[0], "option_text"
        if found:
            return _last_position(lowered, texts, found), "option_text:last"
    return None, "none"


def numbers_in(text: str) -> list[str]:
    """Numbers written with thousands commas, in scientific notation, then plain (in that order)."""
    return _WITH_COMMAS.findall(text) + _SCIENTIFIC.findall(text) + _SIMPLE.findall(text)


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True


def normalize(text: str) -> list[Any]:
    """A number (commas dropped) rounded to 2 decimals, else the lower-cased text; a one-character text
    is looked for with a space before or after it."""
    text = text.strip()
    if _is_number(text):
        return [round(float(text.replace(",", "")), 2)]
    text = text.lower()
    return [" " + text, text + " "] if len(text) == 1 else [text]


def _key_parts(text: str) -> list[str]:
    """The tails after answer markers (``is``, ``so``, ``answer`` …; ``=`` in the last line), shortest
    per line; the whole lower-cased text when no line has one."""
    text = text.strip().strip(".").lower()
    lines = re.split(r"\.\s(?=[A-Z])|\n", text)
    tails: list[str] = []
    for i, line in enumerate(lines):
        markers = (*_KEY_MARKERS, "=") if i == len(lines) - 1 else _KEY_MARKERS
        shortest: str | None = None
        for marker in markers:
            if marker in line:
                tail = line.split(marker)[-1].strip()
                if not shortest or len(tail) < len(shortest):
                    shortest = tail
        if shortest and shortest.strip() not in _TRIVIAL:
            tails.append(shortest)
    return tails or [text]


def open_candidates(text: str) -> list[Any]:
    """Every normalised candidate answer of an open response (texts and the numbers in them)."""
    parts = _key_parts(text)
    raw = [*parts, *(n for part in parts for n in numbers_in(part))]
    out: list[Any] = []
    for item in raw:
        for value in normalize(item):
            if value not in out:
                out.append(value)
    return out


def is_correct(question_type: str, gold: Any, prediction: Any) -> bool:
    """The authors' verdict: a letter equal to the gold letter (or one of a gold list); for an open
    question, a candidate text containing a gold text or a candidate number equal to a gold number."""
    golds = list(gold) if isinstance(gold, list | tuple) else [gold]
    if question_type == "multiple-choice":
        return prediction in golds
    wanted = [value for g in golds for value in normalize(str(g))]
    for candidate in prediction or ():
        if isinstance(candidate, str):
            if any(isinstance(w, str) and w in candidate for w in wanted):
                return True
        elif candidate in wanted:
            return True
    return False


def _options(sample: Sample) -> dict[str, str]:
    return {chr(ord("A") + i): option for i, option in enumerate(sample.choices or ())}


def _parse(text: str, sample: Sample, *, guess: bool) -> ParseOutcome:
    if sample.metadata.get("question_type") != "multiple-choice":
        return Parsed(value=open_candidates(text), how="open")
    options = _options(sample)
    letter, how = choose_letter(text, options)
    if letter is not None:
        return Parsed(value=letter, how=how)
    if not guess:
        return ParseFailure(reason="no option letter or option text in the response")
    stand_in = random.Random(f"42:{sample.id}").choice(list(options))  # until the task is settled
    return Parsed(value=stand_in, how="random", metadata={GUESSED: "".join(options)})


GUESSED = "guessed_from"
"""Record metadata of a guessed answer: the letters the authors' ``random.choice`` picks from."""
SEED = 42
"""``random.seed(42)`` at the top of the authors' ``eval_utils.py`` (the only seeding in the parse-and-eval
script; ``run_llava.py`` seeds the same 42 through ``set_seed``)."""
_SETTLED_STATES = ("ok", "truncated")


def official_draws(records: Iterable[tuple[int, dict[str, Any]]]) -> dict[int, dict[str, Any]]:
    """The authors' guesses for every guessed record: one ``Random(42)`` per repeat (an unrepeated run is
    one stream), consumed in their order (``metadata.position``: subjects in order, rows in file order)
    by the guessed samples only; a record whose letter changes gets its new letter, metrics and score."""
    guessed: list[tuple[int, int, int, str, list[Any], list[str], Any]] = []
    for index, record in records:
        metadata = record.get("metadata") or {}
        letters = metadata.get(GUESSED)
        if not letters or record.get("state") not in _SETTLED_STATES:
            continue
        order = metadata.get("position")
        guessed.append(
            (
                int(record.get("repeat") or 0),
                int(order) if order is not None else index,
                index,
                str(letters),
                list(record.get("targets") or ()),
                list(record.get("metrics") or ()),
                record.get("extracted"),
            )
        )
    guessed.sort()
    changes: dict[int, dict[str, Any]] = {}
    stream: tuple[int, random.Random] | None = None
    for repeat, _, index, letters, golds, keys, extracted in guessed:
        if stream is None or stream[0] != repeat:
            stream = (repeat, random.Random(SEED))
        letter = stream[1].choice(list(letters))
        if letter != extracted:
            value = float(letter in golds)
            changes[index] = {"extracted": letter, "score": value, "metrics": dict.fromkeys(keys, value)}
    return changes


@register_parser("mmmu.response", settle=official_draws)
def response(text: str, sample: Sample, /) -> ParseOutcome:
    """MMMU's parse: a letter (a random one when none is found) or the open answer's candidates."""
    return _parse(text, sample, guess=True)


@register_parser("mmmu.response_strict")
def response_strict(text: str, sample: Sample, /) -> ParseOutcome:
    """MMMU's parse without the random guess: no letter found is a parse failure."""
    return _parse(text, sample, guess=False)


@register_metric("mmmu.acc")
def acc(inp: ScoringInput) -> float:
    """1 when the parsed answer is right by the authors' ``eval_multi_choice`` / ``eval_open``."""
    gold: Sequence[Any] | Any = inp.targets[0] if len(inp.targets) == 1 else list(inp.targets)
    return float(is_correct(str(inp.metadata.get("question_type")), gold, inp.prediction))
