"""JSON Lines input files (datasets, replays, training rows, run records): one object a line, blank lines
skipped.

Every reader wants the same checks and a different error class naming its file, so the caller passes the
error: ``error(line_number, reason)`` with reason ``not valid JSON (...)`` or ``not a JSON object (...)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

__all__ = ["json_objects"]


def json_objects(
    path: Path, *, error: Callable[[int, str], Exception]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line; a bad line raises ``error(line number, reason)``."""
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = _loads(line)
            except json.JSONDecodeError as exc:
                raise error(lineno, f"not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise error(lineno, f"not a JSON object (got {type(row).__name__})")
            yield lineno, row


_LONG_NUMBER = re.compile(r"\d{19}")
"""orjson reads an integer past 64 bits as a float (an id 12345678901234567890123 would change): a line
with 19 digits in a row is read by the standard library."""


def _loads(line: str) -> Any:
    """orjson first (a run reads every row twice: its id scan, then its samples; ≈ 3 × faster than the
    standard library); a line only Python's json reads as it is (``NaN``, a lone surrogate, long
    integers) is read by it, and a line neither reads fails with the standard library's message."""
    if _LONG_NUMBER.search(line):
        return json.loads(line)
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)
