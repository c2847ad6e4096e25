"""Verdict parsers on real-looking judge outputs: Markdown, extra text, missing end tags, two verdict
lines, non-integer and out-of-range scores. Every failure must be a ParseFailure with a reason (the
judge stage turns it into a retry, then ``judge_failed``), never a clipped or default score."""

from __future__ import annotations

import pytest

from omnieval.benchmarks.art.judge import judge_relevance, judge_verdict, read_art_verdict
from omnieval.benchmarks.marker.judge import rubric_score
from omnieval.benchmarks.megabench.judge import ascii_art_verdict, judge_score
from omnieval.parsers import parsers
from omnieval.types import Parsed, ParseFailure, Sample

SAMPLE = Sample(id="s1", input="q")


def _ok(outcome: object, value: int) -> None:
    assert isinstance(outcome, Parsed), outcome
    assert outcome.value == value
    assert isinstance(outcome.value, int)


def _fails(outcome: object, *words: str) -> None:
    assert isinstance(outcome, ParseFailure), outcome
    for word in words:
        assert word in outcome.reason, outcome.reason


# --- MEGA-Bench 1-10 ---------------------------------------------------------------------------

GPT4O_STYLE = (
    "**Score explanation**: The response captures the main events of the video but misses the ending, "
    "where the dog catches the frisbee. Minor hallucination about a second person.\n\n**Score**: 6"
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (GPT4O_STYLE, 6),
        ("**Score**: 7\n**Score explanation**: mostly right", 7),
        ("Score: 10\nScore explanation: perfect match with the reference.", 10),
        ("**Score:** 3\n\n**Score explanation:** the response contradicts the reference", 3),
        ("### Evaluation\n\n- **Score**: **8**\n- **Score explanation**: good", 8),
        ("Score: 9/10 — the answer is detailed.", 9),
        ("Score = 4 (the response is partially correct)", 4),
        ("**Score**: 5\n\nExplanation... so the final **Score**: 5", 5),  # the same score twice is fine
        ("Score: 7.0", 7),
        ("<think>Maybe Score: 3? No, it covers more.</think>\n**Score**: 8", 8),  # scratch scores ignored
    ],
)
def test_megabench_score_accepts(text: str, value: int) -> None:
    _ok(judge_score(text, SAMPLE), value)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("The response is quite good, I would give it an 8.", "no score"),
        ("**Score explanation**: lacks detail", "no score"),
        ("**Score**: 7.5\n**Score explanation**: between good and very good", "not an integer"),
        ("Score: 0\nScore explanation: the response is empty", "outside the scale 1-10"),
        ("**Score**: 11", "outside the scale"),
        ("**Score**: -3", "outside the scale"),
        ("**Score**: 4\n**Score explanation**: ... On reflection, **Score**: 6", "conflicting"),
        ("Score: 8/100", "/100 scale"),
        ("Score: 4 out of 5", "/5 scale"),
        ("<think>The response is close to the reference, Score: 7 seems", "reasoning was cut off"),
    ],
)
def test_megabench_score_rejects(text: str, why: str) -> None:
    _fails(judge_score(text, SAMPLE), why)


def test_megabench_score_does_not_read_an_explanation_number() -> None:
    # "Score explanation: ... 2 of 3 points" must not be read as a score
    _ok(judge_score("**Score explanation**: covers 2 of 3 points: fine\n**Score**: 6", SAMPLE), 6)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("yes", 1),
        ("No", 0),
        ("<think>the first is a cat, yes? no...</think>No", 0),
        ("**Yes.** Both show a cat.", 1),
        ("no, they differ", 0),
        ("I think the answer is yes.", 1),
    ],
)
def test_ascii_verdict(text: str, value: int) -> None:
    _ok(ascii_art_verdict(text, SAMPLE), value)


@pytest.mark.parametrize(
    "text", ["", "Maybe.", "The first looks like a cat (yes) but the second, no.", "They both show eyes"]
)
def test_ascii_verdict_failures(text: str) -> None:
    # the original counts any "yes" substring ("eyes") as yes; here hedging is a failure
    _fails(ascii_art_verdict(text, SAMPLE), "ASCII-art")


# --- MARKER 1-5 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Оценка: 4\nПояснение: грамотный язык, но ошибка в единицах.", 4),
        ("**Оценка:** 5\n\n**Пояснение:** всё верно.", 5),
        ("Оценка: 3 из 5", 3),
        ("<оценка>2</оценка> текст едва связный", 2),
        ("<score>4\nПояснение: закрывающий тег потерян", 4),  # missing end tag, number complete
        ("Score: 1", 1),
        ("Балл: 3", 3),
    ],
)
def test_marker_rubric_accepts(text: str, value: int) -> None:
    _ok(rubric_score(text, SAMPLE), value)


def test_marker_missing_end_tag_is_marked() -> None:
    outcome = rubric_score("<оценка>4\nПояснение: ...", SAMPLE)
    assert isinstance(outcome, Parsed) and "missing_end_tag" in outcome.how


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("<оценка>1", "truncated"),  # the output stops right after the number: "1" of "10"?
        ("Оценка: 6", "outside the scale 1-5"),
        ("Оценка: 0", "outside the scale"),
        ("Оценка: 3,5\nПояснение: между", "not an integer"),
        ("Оценка: 4\nПояснение: ...\nОценка: 2", "conflicting"),
        ("Оценка: 8/10", "/10 scale"),
        ("Решение хорошее, почти без ошибок.", "no score"),
    ],
)
def test_marker_rubric_rejects(text: str, why: str) -> None:
    _fails(rubric_score(text, SAMPLE), why)


# --- ART two-line protocol ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "correct", "relevant"),
    [
        ("Relevant\nCorrect", 1, 1),
        ("Relevant\nIncorrect", 0, 1),
        ("Irrelevant\nThe answer does not address the question about the quieter audio.", 0, 0),
        ("Irrelevant", 0, 0),
        ("**Relevant**\n**Correct**", 1, 1),
        ("Relevant.\nIncorrect.\n\nThe expected answer is No, the given answer implies Yes.", 0, 1),
        ("Example Output:\nRelevant\nCorrect", 1, 1),
        ("\n\nrelevant\n\ncorrect\n", 1, 1),
        ("Relevant\nCorrect - both say there are more barks.", 1, 1),
        ("<think>Irrelevant? No, it answers.</think>\nRelevant\nIncorrect", 0, 1),
    ],
)
def test_art_accepts(text: str, correct: int, relevant: int) -> None:
    _ok(judge_verdict(text, SAMPLE), correct)
    _ok(judge_relevance(text, SAMPLE), relevant)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("Relevant", "without a second line"),
        ("Correct", "first line must start with Relevant or Irrelevant"),
        ("The answer is relevant and correct.", "first line"),
        ("Relevant\nPartially correct", "second line must start with Correct or Incorrect"),
        ("Relevant\nCorrect\nIncorrect", "more than one verdict line"),
        ("Relevant\nIncorrect\nRelevant\nCorrect", "more than one verdict line"),
        ("Relevant: the answer addresses the question", "only 'Relevant'"),
        ("Релевантно\nВерно", "first line"),
        ("<think>Relevant\nCorrect", "reasoning was cut off"),
    ],
)
def test_art_rejects(text: str, why: str) -> None:
    _fails(judge_verdict(text, SAMPLE), why)
    _fails(judge_relevance(text, SAMPLE), why)


def test_art_irrelevant_keeps_explanation() -> None:
    verdict = read_art_verdict("Irrelevant\nThe answer talks about volume, not length.")
    assert not isinstance(verdict, ParseFailure)
    assert (verdict.relevant, verdict.correct) == (False, False)
    assert verdict.explanation == "The answer talks about volume, not length."


def test_parsers_are_registered() -> None:
    for name in (
        "megabench.judge_score",
        "megabench.ascii_art_verdict",
        "marker.rubric_score",
        "art.judge_verdict",
        "art.judge_relevance",
    ):
        assert parsers.get(name) is not None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("A", 1.0),
        ("**B**\nbecause it is complete", 0.0),
        ("=", 0.5),
        ("Ответ А", 1.0),
        ("В", 0.0),
        ("tie", 0.5),
        ("Answer B.", 0.0),
        ("A — it is more complete than B.", 1.0),
    ],
)
def test_pairwise_preference(text: str, value: float) -> None:
    from omnieval.judges.pairwise import pairwise_preference

    outcome = pairwise_preference(text, SAMPLE)
    assert isinstance(outcome, Parsed) and outcome.value == value


@pytest.mark.parametrize("text", ["Both are good.", "AB", "Авторы правы", "A or B, hard to say", "A = B"])
def test_pairwise_preference_failures(text: str) -> None:
    from omnieval.judges.pairwise import pairwise_preference

    _fails(pairwise_preference(text, SAMPLE), "first line")
