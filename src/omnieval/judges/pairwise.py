"""Pairwise judging with a position swap: the model's answer against the gold answer, asked in both
orders so ``omnieval judge audit`` can measure position bias.

Call ``ab`` shows the model's answer first, call ``ba`` (when ``swap=True``) shows it second. Verdicts are
about *slots*: 1 = the answer shown first is better, 0 = the second, 0.5 = a tie (parser
``pairwise_preference``). The sample value is the ``ab`` verdict (the model's answer in the first slot);
the ``ba`` call is recorded for the audit, which counts a judge as consistent when the same *answer*
wins in both orders. ``swap=False`` saves the second call.
"""

from __future__ import annotations

import re

from omnieval.judges.protocols import CallSpec, JudgeInput, JudgePlan, register_judge_protocol
from omnieval.judges.templates import register_judge_template
from omnieval.parsers import register_parser
from omnieval.types import Parsed, ParseFailure, ParseOutcome, Sample

__all__ = ["PAIRWISE_TEMPLATE", "pairwise", "pairwise_preference"]

PAIRWISE_TEMPLATE = register_judge_template(
    "pairwise_preference",
    version="1",
    description="Which of two answers to the task is better? A, B or = (tie); used with the position swap.",
    system="Ты беспристрастный эксперт. Порядок ответов не должен влиять на твоё решение.",
    user=(
        "Задание:\n{{ question }}\n\n"
        "Ответ A:\n{{ first }}\n\n"
        "Ответ B:\n{{ second }}\n\n"
        "Какой ответ лучше решает задание? Напиши только одно: A, B или = (если они равноценны)."
    ),
)


@register_judge_protocol("pairwise")
def pairwise(inp: JudgeInput, /, *, swap: bool = True) -> JudgePlan:
    """The model's answer vs the gold: ``ab`` (model first) and, with ``swap``, ``ba`` (model second)."""
    gold = inp.targets[0] if inp.targets else ""
    calls = [
        CallSpec("ab", {"question": inp.question, "first": inp.answer, "second": gold, "sample": inp.sample})
    ]
    if swap:
        calls.append(
            CallSpec(
                "ba", {"question": inp.question, "first": gold, "second": inp.answer, "sample": inp.sample}
            )
        )
    return JudgePlan(tuple(calls), combine="first")


_CHOICE = re.compile(r"^\W*(?:ответ\s+|answer\s+)?([abавAB]|=|tie|ничья)(?![\w])", re.IGNORECASE)
_OTHER = re.compile(r"^\s*(?:or|или|and|и|/|=|vs\.?)\s*(?:[abавAB]|=|tie|ничья)(?![\w])", re.IGNORECASE)
"""A hedge right after the choice: "A or B", "A = B", "А / В"."""
_VALUES = {"a": 1.0, "а": 1.0, "b": 0.0, "в": 0.0, "=": 0.5, "tie": 0.5, "ничья": 0.5}


@register_parser("pairwise_preference")
def pairwise_preference(text: str, sample: Sample, /) -> ParseOutcome:
    """``A`` → 1 (the first answer shown wins), ``B`` → 0, ``=`` / tie → 0.5 (Cyrillic А/В accepted)."""
    lines = [line for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return ParseFailure(reason="empty judge output: expected A, B or =")
    first = lines[0].replace("*", "")
    found = _CHOICE.match(first)
    if not found:
        return ParseFailure(reason=f"the first line must be A, B or =, got {lines[0][:80]!r}")
    if _OTHER.match(first[found.end() :]):
        return ParseFailure(reason=f"the first line names more than one choice: {lines[0][:80]!r}")
    return Parsed(value=_VALUES[found.group(1).lower()], how="first_line")
