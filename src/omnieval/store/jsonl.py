"""JSON Lines input files (datasets, replays, training rows, run records): one object a line, blank lines
skipped.

Every reader wants the same checks and a different error class naming its file, so the caller passes the
error: ``error(line_number, reason)`` with reason ``not valid JSON (...)`` or ``not a JSON object (...)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise error(lineno, f"not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise error(lineno, f"not a JSON object (got {type(row).__name__})")
            yield lineno, row
