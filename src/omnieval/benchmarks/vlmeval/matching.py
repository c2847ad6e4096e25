"""Finding the chosen option in free text as VLMEvalKit's ``can_infer`` does (rule matching only).

Written from the behaviour of ``vlmeval/utils/matching_util.py`` (open-compass/VLMEvalKit, Apache-2.0);
tests run the original beside it (tests/benchmarks/hub/vendor/). Its quirks are kept: a letter counts
only as a whole word after ``.()[],:;!*#{}`` become spaces, two letters named at once match nothing, a
bare ``Z`` or a refusal phrase is the answer ``Z`` (always wrong), and otherwise the answer is the one
option whose text (lower-cased) occurs in the response.
"""

from __future__ import annotations

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


def infer_letter(answer: str, letters: list[str]) -> str | None:
    """The one option letter written as a word; ``Z`` for a refusal or a lone ``Z``; else ``None``."""
    if API_FAILURE in answer:
        return None
    if any(phrase in answer for phrase in REFUSALS):
        return "Z"
    words = set(answer.translate(_SPACED).split())
    named = [letter for letter in letters if letter in words]
    if len(named) == 1:
        return named[0]
    if not named and "Z" in words:
        return "Z"
    return None


def infer_text(answer: str, options: Mapping[str, str]) -> str | None:
    """The one option whose text occurs in the response (both lower-cased); else ``None``."""
    lowered = answer.lower()
    found = [letter for letter, text in options.items() if str(text).lower() in lowered]
    return found[0] if len(found) == 1 else None


def infer_choice(answer: str, options: Mapping[str, str]) -> str | None:
    """The option letter VLMEvalKit's rule matching reads from ``answer`` (``None``: no match)."""
    text = str(answer)
    return infer_letter(text, list(options)) or infer_text(text, options)
