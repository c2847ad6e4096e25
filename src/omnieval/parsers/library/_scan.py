"""Bounded, string-aware scanning for bracketed spans and code fences (no regex backtracking)."""

from __future__ import annotations

import re
from collections import deque

__all__ = ["MAX_CANDIDATES", "bracket_spans", "code_blocks", "leading_fence", "unwrap_fence"]

MAX_CANDIDATES = 200
"""At most this many bracketed spans (the last ones) are tried per response."""

_FENCE = re.compile(r"```[ \t]*([\w+-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_PAIRS = {"{": "}", "[": "]", "(": ")"}


def code_blocks(text: str) -> list[str]:
    """Contents of every closed ``` fenced block, in order."""
    return [m.group(2) for m in _FENCE.finditer(text)]


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
    match = _FENCE.match(stripped)
    if match is not None:
        return match.group(2).strip(), True
    return unwrap_fence(stripped)


def bracket_spans(text: str, *, openers: str = "{[", limit: int = MAX_CANDIDATES) -> list[tuple[int, int]]:
    """Outermost balanced spans opened by ``openers``, skipping brackets inside quoted strings.

    Linear time; an unbalanced span is dropped; only the last ``limit`` spans are kept (the final
    answer comes last). Each span is ``(start, end)``, end exclusive.
    """
    spans: deque[tuple[int, int]] = deque(maxlen=limit)
    stack: list[str] = []
    start = 0
    quote = ""
    escaped = False
    for i, ch in enumerate(text):
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
                start = i
            continue
        if ch in "\"'":
            quote = ch
        elif ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif ch in ")]}":
            if ch != stack[-1]:
                stack.clear()  # mismatched: give this span up
                continue
            stack.pop()
            if not stack:
                spans.append((start, i + 1))
    return list(spans)
