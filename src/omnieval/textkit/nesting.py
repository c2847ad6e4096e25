"""Bracket nesting depth: checked before handing text to recursive parsers (``ast``, ``json``)."""

from __future__ import annotations

__all__ = ["nesting_depth"]


def nesting_depth(text: str) -> int:
    """Deepest level of ``()[]{}`` nesting, counted in one linear pass (quotes are not special)."""
    depth = peak = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            peak = max(peak, depth)
        elif ch in ")]}":
            depth -= 1
    return peak
