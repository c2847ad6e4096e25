"""MMAU's ``string_match`` (``evaluation.py`` of Sakshi113/MMAU): answer by the choice's words.

Words are ``\\b\\w+\\b`` tokens of the lower-cased text (Unicode word characters). A prediction is
right when it contains every word of the answer and no word that only a *wrong* choice has (words
shared with the answer do not count against it; a wrong choice spelt with exactly the answer's words
contributes nothing). A prediction without any word is wrong.

Quirks the rule implies, reproduced: a bare option letter (``"B"``) is wrong unless the letter is
itself a word of the answer; naming the right choice in a sentence that happens to contain a word of
a wrong choice (``"it is not a dog but a cat"``) is wrong; word order and repetition are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["mmau_match", "words"]

_WORD = re.compile(r"\b\w+\b")


def words(text: str) -> frozenset[str]:
    """The set of lower-cased word tokens of ``text``."""
    return frozenset(_WORD.findall(text.lower()))


def mmau_match(prediction: str, answer: str, choices: Sequence[str]) -> bool:
    """Whether ``prediction`` picks ``answer`` among ``choices`` by MMAU's word rule."""
    predicted = words(prediction)
    if not predicted:
        return False
    expected = words(answer)
    wrong: set[str] = set()
    for choice in choices:
        tokens = words(choice)
        if tokens != expected:
            wrong |= tokens - expected
    return expected <= predicted and predicted.isdisjoint(wrong)
