"""Finding the chosen option in free text as VLMEvalKit's ``can_infer`` does (rule matching only).

Written from the behaviour of ``vlmeval/utils/matching_util.py`` (open-compass/VLMEvalKit@e8e78f05,
last changed in 2cf2a36c, Apache-2.0); tests run the original beside it (tests/benchmarks_hub/vendor/).
Its quirks are kept:

- a letter counts only as a whole word once ``.()[],:;!*#{}`` become spaces, and only when exactly one
  option letter is written and its first occurrence is among the last four words;
- otherwise ``answer is X`` / ``correct answer is **X**`` (any case: ``the answer is a cat`` is A) decides
  (``--strict-metrics``: only a capital letter standing alone);
- a lone ``Z`` (no option letter) or a refusal phrase is the answer ``Z``, which is always wrong;
- otherwise the one option whose text (lower-cased) occurs in the response, unless the response is more
  than twice as long as all the options together.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["infer_choice", "infer_letter", "infer_text"]

API_FAILURE = "Failed to obtain answer via API"
REFUSALS = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)
_SPACED = str.maketrans(dict.fromkeys(".()[],:;!*#{}", " "))
_ANSWER_IS = re.compile(r"(?i)(?:correct\s+)?answer\s+is\s+\**([ABCD])\**")
_ANSWER_IS_CAPITAL = re.compile(r"(?i:(?:correct\s+)?answer\s+is\s+)\**([ABCD])\b\**")
_TAIL_WORDS = 4


def infer_letter(answer: str, letters: list[str], *, strict: bool = False) -> str | None:
    """The option letter the response names (see the module's rules); ``Z`` for a refusal; else ``None``.
    ``strict``: ``answer is X`` only for a capital letter standing alone (``the answer is a cat`` is no A)."""
    if API_FAILURE in answer:
        return None
    if any(phrase in answer for phrase in REFUSALS):
        return "Z"
    words = answer.translate(_SPACED).split()
    named = [letter for letter in letters if letter in words]
    if len(named) == 1:
        if words.index(named[0]) > len(words) - 1 - _TAIL_WORDS:
            return named[0]
    elif not named and "Z" in words:
        return "Z"
    said = (_ANSWER_IS_CAPITAL if strict else _ANSWER_IS).search(answer)
    if said and said.group(1).upper() in letters:
        return said.group(1).upper()
    return None


def infer_text(answer: str, options: Mapping[str, str]) -> str | None:
    """The one option whose text occurs in the response (both lower-cased); ``None`` for none, several,
    or a response over twice the options' total length."""
    lowered = answer.lower()
    if len(lowered) > 2 * sum(len(str(text)) for text in options.values()):
        return None
    found = [letter for letter, text in options.items() if str(text).lower() in lowered]
    return found[0] if len(found) == 1 else None


def infer_choice(answer: str, options: Mapping[str, str], *, strict: bool = False) -> str | None:
    """The option letter VLMEvalKit's rule matching reads from ``answer`` (``None``: no match)."""
    text = str(answer)
    return infer_letter(text, list(options), strict=strict) or infer_text(text, options)
