"""The ANSWER/ОТВЕТ marker rule (MERA): the answer is what follows the last marker."""

from __future__ import annotations

import re

__all__ = ["after_marker", "has_marker"]

_MARKER = re.compile(r"(?<!\w)(?:answer|ответ)(?!\w)[ \t]*\**[ \t]*:?", re.IGNORECASE)
_EDGE = " \t\r\n*_`\"'«»—–:"


def has_marker(text: str) -> bool:
    """True when ``text`` contains an ANSWER/ОТВЕТ marker (any case, optional colon)."""
    return _MARKER.search(text) is not None


def after_marker(text: str) -> str | None:
    """Text after the last marker, markdown emphasis and quotes trimmed; ``None`` without a marker."""
    last = None
    for last in _MARKER.finditer(text):  # noqa: B007 - we want the final match
        pass
    if last is None:
        return None
    return text[last.end() :].strip().strip(_EDGE).strip()
