"""Video-MME's answer extraction and its overall score (correct over answered).

Written from the behaviour of ``eval_your_results.py`` as the Video-MME README links it
(thanku-all/parse_answer@afd52cfe3dde5b3685e0d4f760c10c756860c758; no licence, so no copy runs in the
tests: their cases are worked by hand from the code). Quirks kept by default:

- the answer prefixes are deleted from the response before the search, and two pairs of them lack a comma
  in the original list, so ``"The best option is"`` / ``"The correct option is"`` and ``"Best answer:"`` /
  ``"Best option:"`` are only deleted when written back to back;
- the answer is the FIRST capital A, B, C or D anywhere in what is left ("Among …" answers A);
- a response with none is unanswered, and the overall is correct over answered: unanswered questions are
  left out of the denominator, not counted wrong.

``--strict-metrics``: ``videomme.letter_strict`` deletes every prefix and takes the first letter standing
alone; ``videomme.acc_strict`` counts an unanswered question as wrong.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from omnieval.metrics.base import register_aggregation, register_metric
from omnieval.parsers.base import register_parser
from omnieval.types import Parsed, ParseFailure, ParseOutcome, Sample, SampleResult, ScoringInput

__all__ = ["acc", "acc_strict", "extract_letter", "letter", "letter_strict", "over_answered"]

PREFIXES = (
    "The best answer is",
    "The correct answer is",
    "The answer is",
    "The answer",
    "The best option isThe correct option is",  # a missing comma in the original list
    "Best answer:Best option:",  # likewise
    "Answer:",
    "Option:",
    "The correct answer",
    "The correct option",
)
STRICT_PREFIXES = (
    "The best answer is",
    "The correct answer is",
    "The answer is",
    "The answer",
    "The best option is",
    "The correct option is",
    "Best answer:",
    "Best option:",
    "Answer:",
    "Option:",
    "The correct answer",
    "The correct option",
)
_ANY_LETTER = re.compile(r"[ABCD]")
_LONE_LETTER = re.compile(r"(?<![A-Za-z])[ABCD](?![A-Za-z])")


def extract_letter(response: str, *, strict: bool = False) -> str:
    """The answer letter of a response, ``""`` when there is none."""
    text = response.strip()
    for prefix in STRICT_PREFIXES if strict else PREFIXES:
        text = text.replace(prefix, "")
    found = (_LONE_LETTER if strict else _ANY_LETTER).search(text)
    return found.group(0) if found else ""


def _parse(text: str, *, strict: bool) -> ParseOutcome:
    found = extract_letter(text, strict=strict)
    if not found:
        return ParseFailure(reason="no A, B, C or D in the response (unanswered)")
    return Parsed(value=found, how="strict" if strict else "first_capital")


@register_parser("videomme.letter")
def letter(text: str, sample: Sample, /) -> ParseOutcome:
    """The first capital A–D once the prefixes are deleted (the authors' ``extract_characters_regex``)."""
    return _parse(text, strict=False)


@register_parser("videomme.letter_strict")
def letter_strict(text: str, sample: Sample, /) -> ParseOutcome:
    """The first A–D standing alone once every answer prefix is deleted."""
    return _parse(text, strict=True)


def _hit(inp: ScoringInput) -> float:
    return float(inp.parsed and bool(inp.targets) and inp.prediction == str(inp.targets[0]))


@register_metric("videomme.acc", outputs=("acc", "answered"))
def acc(inp: ScoringInput) -> dict[str, float]:
    """1 when the extracted letter is the gold one; ``answered`` marks a response with a letter (an
    unanswered sample is a parse failure, zero under both keys, and left out of the overall)."""
    return {"acc": _hit(inp), "answered": 1.0}


@register_metric("videomme.acc_strict", version="1-strict", outputs=("acc",))
def acc_strict(inp: ScoringInput) -> dict[str, float]:
    """1 when the extracted letter is the gold one; an unanswered sample counts (as wrong)."""
    return {"acc": _hit(inp)}


@register_aggregation("videomme.over_answered")
def over_answered(values: Sequence[float], results: Sequence[SampleResult], /) -> float:
    """Sum over the answered samples (``answered`` not 0; absent: every sample counts) divided by their
    number: Video-MME's ``correct / answered``; 0 when none was answered, as the original prints."""
    answered = [v for v, r in zip(values, results, strict=True) if r.metrics.get("answered", 1.0) > 0]
    return sum(answered) / len(answered) if answered else 0.0
