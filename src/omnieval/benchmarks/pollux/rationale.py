"""The rationale rule of App. B: "written in the Russian language and contain at least two words, one
word rationale are only eligible for the perfect scores". Applied to experts' comments and,
optionally, to judges' feedback.

Choices the paper leaves open (documented in docs/benchmarks/pollux.md): a word is a token holding at
least one letter; the text is Russian when at least ``min_cyrillic_share`` of its letters are Cyrillic; the
perfect score of an inverted (Critical) criterion is 0; a bare dash has no words, so it is invalid
even for a perfect score.

A judge's feedback is always checked for its language (the prompts ask for Russian; English feedback is
"judge output in the wrong language"), measured on the judge's own words: code spans and quoted text
(often the English source of a translation task) are left out first.
"""

from __future__ import annotations

import re

__all__ = ["cyrillic_share", "feedback_language_problem", "rationale_problem", "word_count"]

_WORD = re.compile(r"\w*[^\W\d_]\w*", re.UNICODE)
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_QUOTED = re.compile(r"```.*?```|`[^`]*`|«[^»]*»|“[^”]*”|„[^“”]*[“”]|\"[^\"]*\"", re.DOTALL)
NOT_RUSSIAN = "rationale is not in Russian"


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def cyrillic_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if _CYRILLIC.match(c)) / len(letters)


def rationale_problem(
    text: str | None, *, score: float | None, perfect: int, min_cyrillic_share: float = 0.5
) -> str | None:
    """Why a rationale breaks the rule, or ``None`` when it complies."""
    text = (text or "").strip()
    words = word_count(text)
    if words == 0:
        return "empty rationale"
    if cyrillic_share(text) < min_cyrillic_share:
        return NOT_RUSSIAN
    if words < 2 and score != perfect:
        return "one-word rationale for a non-perfect score"
    return None


def feedback_language_problem(text: str | None, *, min_cyrillic_share: float = 0.5) -> str | None:
    """``NOT_RUSSIAN`` when the judge's own words (outside code and quotes) are not Russian; feedback
    with no words of its own (a bare ``[RESULT] n``, a regression judge) has no language to check."""
    own = _QUOTED.sub(" ", text or "")
    if word_count(own) == 0:
        return None
    return NOT_RUSSIAN if cyrillic_share(own) < min_cyrillic_share else None
