"""Why samples failed, in buckets a reader can act on: HTTP status, timeout, connection, bad JSON, parse.

The reasons are the runner's and the backends' own messages (``HTTP 503: ...``, ``no answer within 120 s``,
``connection failed: ...``, ``response body is not valid JSON``), so matching their wording is reliable."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["CauseCounter", "error_cause"]

_HTTP = re.compile(r"\bHTTP (\d{3})\b")
_MEDIA = (  # a request the runner could not build: the reason names the file (``media PATH: ...``)
    ("missing media", re.compile(r"\bmedia .+: (file not found|is a directory)")),
    ("bad media", re.compile(r"could not build the request: media .+: ")),
)
_RULES = (
    ("timeout", re.compile(r"no answer within|timed? ?out|timeout", re.I)),
    ("connection", re.compile(r"connection (failed|refused|reset|error)|bad URL|DNS|TLS|unreachable", re.I)),
    ("bad JSON", re.compile(r"not valid JSON|expected a JSON object|JSON", re.I)),
    ("bad response", re.compile(r"response field", re.I)),
)


def error_cause(reason: str | None) -> str:
    """The bucket of one ``error`` sample's reason: ``missing media`` or ``bad media`` (a file the request
    needed, named in the example), ``HTTP 503``, ``timeout``, ``connection``, ``bad JSON``, ``bad response``
    (a field missing from an otherwise valid reply) or ``other``."""
    text = reason or ""
    if media := next((name for name, pattern in _MEDIA if pattern.search(text)), None):
        return media
    if status := _HTTP.search(text):
        return f"HTTP {status.group(1)}"
    return next((name for name, pattern in _RULES if pattern.search(text)), "other")


class CauseCounter:
    """Counts per cause with one example reason each (the smallest, so record order does not matter)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.examples: dict[str, str] = {}

    def add(self, state: str, reason: str | None) -> None:
        """Count an ``error`` sample by its cause and a ``parse_failed`` one as ``parse``; ignore other
        states."""
        if state not in ("error", "parse_failed"):
            return
        cause = error_cause(reason) if state == "error" else "parse"
        self.counts[cause] = self.counts.get(cause, 0) + 1
        example = str(reason or "")[:300]
        if cause not in self.examples or example < self.examples[cause]:
            self.examples[cause] = example

    def table(self) -> dict[str, dict[str, Any]]:
        """``{cause: {"n", "example"}}``, most frequent first."""
        order = sorted(self.counts, key=lambda c: (-self.counts[c], c))
        return {cause: {"n": self.counts[cause], "example": self.examples[cause]} for cause in order}
