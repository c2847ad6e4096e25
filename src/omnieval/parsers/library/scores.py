"""Reading a judge's numeric score ("Score: 7", "**Оценка:** 4", "<score>7</score>") out of free text.

Judges wrap their verdict in Markdown, add explanations, repeat themselves or break the format.
:func:`read_scale_score` finds every labelled score in the text and accepts it only when the answer is
unambiguous: one integer value (repeats of the same value are fine), inside the scale, over the
scale's own denominator if one is written ("7/10"). Anything else is a :class:`ParseFailure` saying
why, never a clipped or guessed number, so the judge stage can retry and then count ``judge_failed``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from omnieval.types import Parsed, ParseFailure, ParseOutcome

__all__ = ["ScoreHit", "drop_reasoning", "find_scores", "read_scale_score"]

_NUMBER = r"(?P<num>[-+−]?\d+(?:[.,]\d+)?)(?:\s*(?:/|из|out\s+of)\s*(?P<den>\d+))?"
_MARKUP = r"[*_`]*"
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_OPEN_THINK = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)


@dataclass(frozen=True)
class ScoreHit:
    """One labelled number found in the text, as written."""

    text: str
    number: str
    denominator: str | None
    tagged: bool
    closed: bool = True
    truncated: bool = False


def _label_pattern(labels: Sequence[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(label) for label in labels)
    # "Score: 7", "**Score**: 7", "**Score:** 7", "Score = **7**"; not "Score explanation: ..."
    return re.compile(
        rf"(?<![\w])(?:{names}){_MARKUP}\s*[:：=]\s*{_MARKUP}\s*{_NUMBER}",
        re.IGNORECASE,
    )


def _tag_pattern(tags: Sequence[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(tag) for tag in tags)
    return re.compile(rf"<(?P<tag>{names})>\s*{_NUMBER}\s*(?P<close></(?P=tag)>)?", re.IGNORECASE)


def drop_reasoning(text: str) -> str | None:
    """``text`` without ``<think>…</think>`` blocks; None when a reasoning block is never closed."""
    text = _THINK.sub("", text)
    return None if _OPEN_THINK.search(text) else text


def find_scores(text: str, *, labels: Sequence[str], tags: Sequence[str] = ()) -> list[ScoreHit]:
    """Every ``label: N`` and ``<tag>N</tag>`` in ``text`` (case-insensitive), in order."""
    hits: list[tuple[int, ScoreHit]] = []
    for m in _label_pattern(labels).finditer(text):
        hits.append((m.start(), ScoreHit(m.group(0), m.group("num"), m.group("den"), False)))
    if tags:
        for m in _tag_pattern(tags).finditer(text):
            closed = m.group("close") is not None
            # "<score>7" and then the end of the output may be a cut-off "<score>10": not a verdict
            truncated = not closed and m.end() >= len(text.rstrip())
            hits.append(
                (m.start(), ScoreHit(m.group(0), m.group("num"), m.group("den"), True, closed, truncated))
            )
    return [hit for _, hit in sorted(hits, key=lambda pair: pair[0])]


def _as_int(hit: ScoreHit) -> int | str:
    """The hit's integer value, or why it is not one."""
    number = hit.number.replace("−", "-").replace(",", ".")
    if "." in number:
        whole, _, frac = number.partition(".")
        if frac.strip("0"):
            return f"score {hit.number!r} is not an integer"
        number = whole
    return int(number)


def read_scale_score(
    text: str,
    *,
    low: int,
    high: int,
    labels: Sequence[str],
    tags: Sequence[str] = (),
    what: str = "score",
) -> ParseOutcome:
    """The single integer score in ``[low, high]`` the judge wrote, or a failure naming the problem.

    ``Parsed.value`` is the score as written (an ``int`` on the judge's own scale); ``how`` says which
    form was read. Out-of-range scores are failures, never clipped.
    """
    if not text or not text.strip():
        return ParseFailure(reason=f"empty judge output: no {what}")
    answer = drop_reasoning(text)  # a reasoning judge's scratch scores are not its verdict
    if answer is None:
        return ParseFailure(reason=f"the judge's reasoning was cut off before a {what}")
    hits = find_scores(answer, labels=labels, tags=tags)
    if not hits:
        forms = ", ".join([f"'{labels[0].capitalize()}: N'", *(f"'<{t}>N</{t}>'" for t in tags[:1])])
        return ParseFailure(reason=f"no {what} found (expected {forms}): {_clip(answer)}")
    values: list[int] = []
    for hit in hits:
        if hit.truncated:
            return ParseFailure(
                reason=f"{what} tag is not closed and the output ends after the number (truncated?): "
                f"{hit.text!r}"
            )
        value = _as_int(hit)
        if isinstance(value, str):
            return ParseFailure(reason=f"{value} (expected an integer {low}-{high})")
        if hit.denominator is not None and int(hit.denominator) != high:
            return ParseFailure(
                reason=f"{what} {hit.text.strip()!r} is on a /{hit.denominator} scale, expected /{high}"
            )
        values.append(value)
    distinct = sorted(set(values))
    if len(distinct) > 1:
        return ParseFailure(reason=f"conflicting {what}s {distinct} in one judge output")
    score = distinct[0]
    if not low <= score <= high:
        return ParseFailure(reason=f"{what} {score} is outside the scale {low}-{high}")
    how = "tag" if hits[0].tagged else "label"
    if any(h.tagged and not h.closed for h in hits):
        how += ":missing_end_tag"
    if len(hits) > 1:
        how += f":repeated×{len(hits)}"
    return Parsed(value=score, how=how)


def _clip(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
