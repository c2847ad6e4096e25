"""Bounded, string-aware scanning for bracketed spans and code fences (no regex backtracking)."""

from __future__ import annotations

import re
from collections import deque

__all__ = ["FENCE", "MAX_CANDIDATES", "bracket_spans", "code_blocks", "leading_fence", "unwrap_fence"]

MAX_CANDIDATES = 200
"""At most this many bracketed spans (the last ones) are tried per response."""

FENCE = re.compile(r"```[ \t]*([\w+-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_PAIRS = {"{": "}", "[": "]", "(": ")"}


def code_blocks(text: str) -> list[str]:
    """Contents of every closed ``` fenced block, in order."""
    return [m.group(2) for m in FENCE.finditer(text)]


def unwrap_fence(text: str) -> tuple[str, bool]:
    """The contents of the last code block when ``text`` has one, else ``text``; and whether it did."""
    blocks = code_blocks(text)
    if blocks:
        return blocks[-1].strip(), True
    stripped = text.strip()
    if stripped.startswith("```"):  # an unclosed fence: drop the opening line
        return stripped.split("\n", 1)[1].strip() if "\n" in stripped else "", True
    return text, False


def leading_fence(text: str) -> tuple[str, bool]:
    """The first code block's contents when ``text`` starts with one (a snippet further down is kept)."""
    stripped = text.lstrip()
    if not stripped.startswith("```"):
        return text, False
    match = FENCE.match(stripped)
    if match is not None:
        return match.group(2).strip(), True
    return unwrap_fence(stripped)


MAX_RESCANS = 10
"""An unclosed span restarts the scan just after its opener at most this many times."""
_STRING_START = "{[,:("


def _scan(text: str, begin: int, openers: str, spans: deque[tuple[int, int]]) -> int | None:
    """Collect balanced spans from ``begin``; return the start of a span left open at the end."""
    stack: list[str] = []
    start = 0
    quote = ""
    escaped = False
    last_solid = ""
    for i in range(begin, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote or ch == "\n":
                quote = ""
            continue
        if not stack:
            if ch in openers:
                stack.append(_PAIRS[ch])
                start, last_solid = i, ch
            continue
        if ch == '"' or (ch == "'" and last_solid in _STRING_START):  # an apostrophe in prose is no quote
            quote = ch
        elif ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif ch in ")]}":
            if ch != stack[-1]:
                stack.clear()  # mismatched: give this span up
            else:
                stack.pop()
                if not stack:
                    spans.append((start, i + 1))
        if not ch.isspace():
            last_solid = ch
    return start if stack else None


def bracket_spans(text: str, *, openers: str = "{[", limit: int = MAX_CANDIDATES) -> list[tuple[int, int]]:
    """Outermost balanced spans opened by ``openers``, skipping brackets inside quoted strings.

    Near-linear: a span still open at the end is rescanned from just after its opener (at most
    ``MAX_RESCANS`` times), so ``{it's} {"a": 1}`` still finds the object. Only the last ``limit``
    spans are kept (the final answer comes last). Each span is ``(start, end)``, end exclusive.
    """
    spans: deque[tuple[int, int]] = deque(maxlen=limit)
    begin = 0
    for _ in range(MAX_RESCANS + 1):
        left_open = _scan(text, begin, openers, spans)
        if left_open is None:
            break
        begin = left_open + 1
    return sorted(set(spans))[-limit:]
