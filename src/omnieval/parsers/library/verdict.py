"""Judge verdict parsers: a number out of a judge model's free text, or a failure that says why.

Judges wrap verdicts in Markdown, tags (sometimes without the end tag), labels in English or
Russian, explanations before or after. The parsers look, in order of how explicit the form is, for
``[[7]]`` or ``<score>7``; a labelled ``Score: 7`` / ``Оценка: 7/10``; a line that is only a number;
a number opening the first line. Two different verdicts at the most explicit level found is a
failure (the judge contradicted itself), never a guess. Range checks belong to the judge stage.
"""

from __future__ import annotations

import re

from omnieval.parsers.base import register_parser
from omnieval.types import Parsed, ParseFailure, ParseOutcome, Sample

__all__ = ["judge_binary", "judge_score", "read_verdict"]

_NUM = r"([-+]?\d+(?:[.,]\d+)?)"
_TAG_WORDS = r"verdict|score|rating|grade|answer|judgement|judgment|оценка|вердикт|ответ|балл"
_LABEL_WORDS = (
    r"final\s+score|overall\s+score|verdict|score|rating|grade|answer|label|judgement|judgment|result|"
    r"итоговая\s+оценка|оценка|вердикт|ответ|балл(?:ы|ов)?|итог|результат"
)
_LEVELS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bracketed", re.compile(r"\[\[\s*" + _NUM + r"\s*\]\]")),
    ("tagged", re.compile(r"<\s*(?:" + _TAG_WORDS + r")\s*>\s*" + _NUM, re.IGNORECASE)),
    (
        "labelled",
        re.compile(r"(?:^|[^\w])(?:" + _LABEL_WORDS + r")\s*[:：=—–-]\s*\[?\s*" + _NUM, re.IGNORECASE),
    ),
    (
        "alone",
        re.compile(
            r"^[ \t]*[\[(]?[ \t]*" + _NUM + r"[ \t]*(?:/[ \t]*\d+)?[ \t]*[\])]?[ \t]*[.!]?[ \t]*$",
            re.MULTILINE,
        ),
    ),
)
_LEADING = re.compile(r"^\s*" + _NUM + r"(?:\s*/\s*\d+)?(?=$|\s|[.,;:)—–-])")
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_MARKDOWN = re.compile(r"[*`#_]+")


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def read_verdict(text: str, *, integer: bool) -> ParseOutcome:
    """The judge's numeric verdict in ``text`` (see the module docstring for the forms accepted)."""
    body = _THINK.sub("", text)
    if re.search(r"<(think|thinking|reasoning)>", body, re.IGNORECASE):
        return ParseFailure(reason="the judge's reasoning was cut off before a verdict")
    body = _MARKDOWN.sub("", body).strip()
    if not body:
        return ParseFailure(reason="empty judge output")
    for how, pattern in _LEVELS:
        found = [m.group(1) for m in pattern.finditer(body)]
        if found:
            return _one(found, how=how, integer=integer)
    first = body.splitlines()[0]
    leading = _LEADING.match(first)
    if leading:
        return _one([leading.group(1)], how="leading", integer=integer)
    return ParseFailure(reason=f"no numeric verdict in the judge output: {text.strip()[:160]!r}")


def _one(found: list[str], *, how: str, integer: bool) -> ParseOutcome:
    values = list(dict.fromkeys(_number(f) for f in found))
    if len(values) > 1:
        shown = ", ".join(f"{v:g}" for v in values)
        return ParseFailure(reason=f"the judge gave {len(values)} different verdicts ({shown})")
    value = values[0]
    if integer and not value.is_integer():
        return ParseFailure(reason=f"verdict {value:g} is not an integer")
    return Parsed(value=int(value) if value.is_integer() else value, how=how)


@register_parser("judge_binary")
def judge_binary(text: str, sample: Sample, /) -> ParseOutcome:
    """A 0/1 judge verdict (any other integer is returned for the judge stage's scale check to reject)."""
    return read_verdict(text, integer=True)


@register_parser("judge_score")
def judge_score(text: str, sample: Sample, /, *, integer: bool = True) -> ParseOutcome:
    """A numeric judge score such as ``7``, ``Score: 7``, ``Оценка: 7/10`` or ``[[7]]``."""
    return read_verdict(text, integer=integer)
