"""The ANSWER/ОТВЕТ marker rule (MERA): the answer is what follows the last marker.

Two readings. ``after_exact_marker`` is MERA's released one: a case-sensitive split on the upper-case
word ``ОТВЕТ`` (anywhere, even inside a longer word), the text after the last one, nothing trimmed.
``after_marker`` is omnieval's lenient one (any case, English ANSWER, emphasis, quotes, dashes and a
colon trimmed): the fixed behaviour under ``--strict-metrics`` and the generic parsers' reading.
"""

from __future__ import annotations

import re

__all__ = [
    "MERA_MARKER",
    "after_exact_marker",
    "after_marker",
    "has_marker",
    "with_exact_marker_tail",
    "with_marker_tail",
]

MERA_MARKER = "ОТВЕТ"

_MARKER = re.compile(r"(?<!\w)(?:answer|ответ)(?!\w)[ \t]*\**[ \t]*(:?)", re.IGNORECASE)
_EDGE = " \t\r\n*_`\"'«»—–:"


def has_marker(text: str) -> bool:
    """True when ``text`` contains an ANSWER/ОТВЕТ marker (any case, optional colon)."""
    return _MARKER.search(text) is not None


def after_marker(text: str) -> str | None:
    """Text after the last marker, markdown emphasis and quotes trimmed; ``None`` without a marker.

    A marker with a colon outranks one without, so "Answer: Paris. To answer fully, ..." gives
    "Paris ..." rather than the prose after the word "answer".
    """
    last = last_colon = None
    for match in _MARKER.finditer(text):
        last = match
        if match.group(1):
            last_colon = match
    chosen = last_colon or last
    if chosen is None:
        return None
    return text[chosen.end() :].strip().strip(_EDGE).strip()


def with_marker_tail(text: str) -> list[str]:
    """``text``, then the text after its last marker when it has one: the two readings MERA scores the best
    of."""
    tail = after_marker(text)
    return [text] if tail is None else [text, tail]


def after_exact_marker(text: str, marker: str = MERA_MARKER) -> str | None:
    """Text after the last ``marker`` matched exactly as MERA's ``text.split(marker)[-1]``; ``None`` without
    one."""
    _, found, tail = text.rpartition(marker)
    return tail if found else None


def with_exact_marker_tail(text: str, marker: str = MERA_MARKER) -> list[str]:
    """``text``, then the text after its last exact ``marker`` when it has one (MERA's released reading)."""
    tail = after_exact_marker(text, marker)
    return [text] if tail is None else [text, tail]
