"""Basic parsers: whole text, ANSWER marker, option letter, number."""

from __future__ import annotations

from omnieval.errors import ParseError
from omnieval.parsers.base import register_parser
from omnieval.textkit import after_marker, answer_region, find_choice, find_numbers
from omnieval.types import Parsed, ParseFailure, ParseOutcome, Sample

__all__ = ["answer_marker", "mc_letter", "number", "strip"]

DEFAULT_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@register_parser("strip")
def strip(text: str, sample: Sample, /) -> ParseOutcome:
    """The whole response without surrounding whitespace."""
    return Parsed(value=text.strip(), how="strip")


@register_parser("answer_marker")
def answer_marker(text: str, sample: Sample, /) -> ParseOutcome:
    """Text after the last ANSWER/ОТВЕТ marker (any case, optional colon), else the whole text."""
    tail = after_marker(text)
    if tail is None:
        return Parsed(value=text.strip(), how="whole")
    return Parsed(value=tail, how="marker")


@register_parser("mc_letter")
def mc_letter(
    text: str, sample: Sample, /, *, labels: str = DEFAULT_LABELS, strict: bool = False
) -> ParseOutcome:
    """The chosen option label; ``strict`` accepts only a bare letter (MARKER's protocol)."""
    hit = find_choice(text, labels=labels, choices=sample.choices, strict=strict)
    if hit.label is None:
        return ParseFailure(reason=hit.how)
    return Parsed(value=hit.label, how=hit.how)


@register_parser("number")
def number(text: str, sample: Sample, /, *, position: str = "last") -> ParseOutcome:
    """A number from the answer region (last ``\\boxed{}``, else after the marker, else all text).

    ``position`` picks the ``last`` (default: final results come last) or ``first`` number there.
    """
    if position not in ("last", "first"):
        raise ParseError(f"parser 'number': position must be 'last' or 'first', not {position!r}")
    region, where = answer_region(text)
    numbers = find_numbers(region)
    if not numbers:
        return ParseFailure(reason=f"no number in the {where} text")
    found = numbers[-1] if position == "last" else numbers[0]
    # "25%" stays 25 (as written, like most gold answers); ``how`` ends in ``:percent``
    return Parsed(value=found.value, how=f"{where}:{position}{':percent' if found.percent else ''}")
