"""Text-shape parsers: a configurable regex and MEGA-Bench-style ``Answer:`` strings."""

from __future__ import annotations

import functools
import re
from typing import Any

from omnieval.errors import ParseError
from omnieval.parsers.base import register_parser
from omnieval.parsers.library._scan import leading_fence
from omnieval.types import Parsed, ParseFailure, ParseOutcome, Sample

__all__ = ["answer_string", "regex_parser"]

REGEX_TIMEOUT_S = 0.1
_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]")
_FLAGS = {"i": "IGNORECASE", "m": "MULTILINE", "s": "DOTALL", "x": "VERBOSE"}
_ANSWER = re.compile(r"(?<!\w)(\*{0,2})(?:answer|ответ)\*{0,2}\s*:\s*(\*{0,2})", re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def _compile(pattern: str, flags: str) -> Any:
    """Compile with the ``regex`` module (it supports a match timeout) or fall back to ``re``."""
    unknown = set(flags) - set(_FLAGS)
    if unknown:
        raise ParseError(f"parser 'regex': unknown flag(s) {sorted(unknown)}; use some of {sorted(_FLAGS)}")
    if _NESTED_QUANTIFIER.search(pattern):
        raise ParseError(f"parser 'regex': pattern {pattern!r} nests quantifiers (catastrophic backtracking)")
    try:
        import regex as engine
    except ImportError:  # pragma: no cover - regex ships with transformers
        engine = re
    value = 0
    for flag in flags:
        value |= getattr(engine, _FLAGS[flag])
    try:
        return engine.compile(pattern, value)
    except Exception as exc:  # re.error / regex.error
        raise ParseError(f"parser 'regex': pattern {pattern!r} does not compile: {exc}") from exc


def _matches(compiled: Any, text: str) -> list[Any]:
    if compiled.__class__.__module__.startswith("regex"):
        return list(compiled.finditer(text, timeout=REGEX_TIMEOUT_S))
    return list(compiled.finditer(text))


@register_parser("regex")
def regex_parser(
    text: str,
    sample: Sample,
    /,
    *,
    pattern: str,
    group: int | str = 0,
    flags: str = "",
    occurrence: str = "last",
    max_chars: int = 20_000,
) -> ParseOutcome:
    """The ``group`` of the ``first``/``last`` match of ``pattern`` in the last ``max_chars`` characters.

    Patterns with nested quantifiers are refused, matching is time-limited (0.1 s).
    """
    if occurrence not in ("first", "last"):
        raise ParseError(f"parser 'regex': occurrence must be 'first' or 'last', not {occurrence!r}")
    compiled = _compile(pattern, flags)
    try:
        found = _matches(compiled, text[-max_chars:])
    except TimeoutError:
        return ParseFailure(reason=f"pattern {pattern!r} timed out after {REGEX_TIMEOUT_S} s")
    if not found:
        return ParseFailure(reason=f"pattern {pattern!r} does not match")
    match = found[-1] if occurrence == "last" else found[0]
    try:
        value = match.group(group)
    except (IndexError, KeyError) as exc:
        raise ParseError(f"parser 'regex': pattern {pattern!r} has no group {group!r}") from exc
    if value is None:
        return ParseFailure(reason=f"group {group!r} did not take part in the match")
    return Parsed(value=value.strip(), how=f"regex:{occurrence}")


@register_parser("answer_string")
def answer_string(text: str, sample: Sample, /, *, require_marker: bool = False) -> ParseOutcome:
    """The answer after the last ``Answer:`` (also ``**Answer:**``, ``Ответ:``), code blocks unwrapped.

    A bold ``**Answer: X**`` yields ``X``; without a marker the whole response is used unless
    ``require_marker``.
    """
    last = None
    for last in _ANSWER.finditer(text):  # noqa: B007 - the final match is wanted
        pass
    if last is None:
        if require_marker:
            return ParseFailure(reason="no 'Answer:' line in the response")
        body, fenced = leading_fence(text)
        return Parsed(value=body.strip(), how="whole:fence" if fenced else "whole")
    rest = text[last.end() :]
    body, fenced = leading_fence(rest)
    if fenced:
        return Parsed(value=body, how="marker:fence")
    if last.group(1) or last.group(2):  # bold: the answer ends at the closing **
        rest = rest.split("**", 1)[0]
    return Parsed(value=rest.strip().strip("*").strip(), how="marker")
