"""The POLLUX judge output parser: ``[FEEDBACK] … [RESULT] n [END]`` (App. M.1).

Tolerated, each recorded in ``Parsed.how``: a missing ``[END]``, a missing ``[FEEDBACK]`` tag (the
text before ``[RESULT]`` is the feedback), tag case and spacing, a colon or markdown bold around the
score, ``[РЕЗУЛЬТАТ]`` for ``[RESULT]``, several ``[RESULT]`` tags (the last wins, as the format puts
the score at the end). Never tolerated: no score, a non-integer score, a score outside the
criterion's scale (M-Prometheus answers on 1–5: that is a failure, never clipped), feedback whose own
words are not Russian (both prompts ask for Russian; ``check_language=False`` turns this off) and, when
asked (``check_feedback``), feedback breaking App. B's rationale rule (empty, or one word for a
non-perfect score).
"""

from __future__ import annotations

import re
from typing import Any

from omnieval.benchmarks.pollux.rationale import feedback_language_problem, rationale_problem
from omnieval.parsers import register_parser
from omnieval.types import Parsed, ParseFailure, Sample

__all__ = ["parse_judge_output", "pollux_judge_parser"]

_RESULT = re.compile(r"\[\s*(?:RESULT|РЕЗУЛЬТАТ)\s*\]", re.IGNORECASE)
_FEEDBACK = re.compile(r"\[\s*(?:FEEDBACK|ОБРАТНАЯ СВЯЗЬ)\s*\]", re.IGNORECASE)
_END = re.compile(r"\[\s*END\s*\]", re.IGNORECASE)
_SCORE = re.compile(r"^[\s:：*_\"'«(]*(-?\d+(?:[.,]\d+)?)(?!\d)")


def parse_judge_output(
    text: str,
    *,
    min_score: int,
    max_score: int,
    check_feedback: bool = False,
    check_language: bool = True,
    higher_is_better: bool = True,
    allow_real: bool = False,
) -> Parsed | ParseFailure:
    """Feedback and score from one judge answer, checked against the scale ``[min_score, max_score]``.

    ``allow_real`` is for regression judges, whose score is a real number (still never clipped)."""
    tolerated: list[str] = []
    results = list(_RESULT.finditer(text))
    if not results:
        return ParseFailure(reason="no [RESULT] tag in the judge output")
    if len(results) > 1:
        tolerated.append("several_results")
    last = results[-1]
    tail = text[last.end() :]
    end = _END.search(tail)
    if end is None:
        tolerated.append("no_end")
    match = _SCORE.match(tail[: end.start()] if end else tail)
    if match is None:
        return ParseFailure(reason="no score after [RESULT]")
    raw = match.group(1).replace(",", ".")
    if "." in raw and not float(raw).is_integer() and not allow_real:
        return ParseFailure(reason=f"score {raw} is not an integer")
    score: float = float(raw) if allow_real else int(float(raw))
    if not min_score <= score <= max_score:
        return ParseFailure(reason=f"score {score} outside the criterion scale {min_score}..{max_score}")
    head = text[: results[0].start()]
    feedback_tag = _FEEDBACK.search(head)
    if feedback_tag is None:
        tolerated.append("no_feedback_tag")
    feedback = (head[feedback_tag.end() :] if feedback_tag else head).strip()
    problem = feedback_language_problem(feedback) if check_language else None
    if check_feedback and problem is None:
        perfect = max_score if higher_is_better else min_score
        problem = rationale_problem(feedback, score=score, perfect=perfect)
    if problem:
        return ParseFailure(reason=f"feedback: {problem}")
    how = "strict" if not tolerated else "tolerant:" + ",".join(tolerated)
    return Parsed(value={"score": score, "feedback": feedback}, how=how)


@register_parser("pollux_judge")
def pollux_judge_parser(
    text: str,
    sample: Sample,
    /,
    *,
    min_score: int | None = None,
    max_score: int | None = None,
    check_feedback: bool = False,
    check_language: bool = True,
    allow_real: bool = False,
) -> Parsed | ParseFailure:
    """Registered form, for the runner and the judge core: ``Parsed(value=<score>)``. Scale bounds come
    from the options or from ``sample.metadata['pollux_criterion']``; with neither it is a failure."""
    crit: dict[str, Any] = sample.metadata.get("pollux_criterion", {})
    low = min_score if min_score is not None else crit.get("min")
    high = max_score if max_score is not None else crit.get("max")
    if low is None or high is None:
        return ParseFailure(reason="no scale bounds: give min_score/max_score or metadata.pollux_criterion")
    parsed = parse_judge_output(
        text,
        min_score=int(low),
        max_score=int(high),
        check_feedback=check_feedback,
        check_language=check_language,
        allow_real=allow_real,
        higher_is_better=bool(crit.get("higher_is_better", True)),
    )
    if not parsed.ok:
        return parsed
    return Parsed(value=parsed.value["score"], how=parsed.how)
