"""Natural ordering of identifiers: ``1, 2, 10`` rather than the text order ``1, 10, 2``."""

from __future__ import annotations

import re

__all__ = ["natural_key"]

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[str | int, ...]:
    """Sort key reading digit runs as numbers (sample ids ``q1, q2, q10``).

    ``re.split`` with a group puts text at even and digits at odd positions, so two keys always compare
    str with str and int with int."""
    return tuple(int(part) if i % 2 else part for i, part in enumerate(_DIGITS.split(text)))
