"""Structured-answer parsers: tolerant JSON and bounded Python literals."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from omnieval.errors import ParseError
from omnieval.parsers.base import register_parser
from omnieval.parsers.library._scan import FENCE, bracket_spans, unwrap_fence
from omnieval.textkit.nesting import nesting_depth
from omnieval.types import Parsed, ParseFailure, ParseOutcome, Sample

__all__ = ["json_parser", "python_literal"]

MAX_JSON_CHARS = 100_000
"""Only the last this many characters of a response are searched for JSON."""
MAX_NESTING = 100
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_JSON_WORDS = re.compile(r"\b(true|false|null)\b")
_PY_WORDS = {"true": "True", "false": "False", "null": "None"}
_WANT = {"object": (dict,), "array": (list,), "any": (dict, list)}
_ERRORS = (ValueError, SyntaxError, TypeError, MemoryError, RecursionError)


def _too_deep(text: str) -> bool:
    return nesting_depth(text) > MAX_NESTING


def _inflate(value: Any, depth: int = 0) -> Any:
    """Decode JSON that a model nested as a string value (``{"a": "{\\"b\\": 1}"}``)."""
    if depth > 8:
        return value
    if isinstance(value, dict):
        return {k: _inflate(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_inflate(v, depth + 1) for v in value]
    if isinstance(value, str) and value[:1] in "{[" and value.rstrip()[-1:] in "}]":
        try:
            return _inflate(json.loads(value), depth + 1)
        except (ValueError, RecursionError):
            return value
    return value


def _load(candidate: str) -> tuple[Any, str] | None:
    """Parse one candidate: plain JSON, then trailing-comma repair, then Python-literal syntax."""
    if _too_deep(candidate):
        return None
    try:
        return json.loads(candidate), "json"
    except _ERRORS:
        pass
    repaired = _TRAILING_COMMA.sub(r"\1", candidate)
    try:
        return json.loads(repaired), "repaired"
    except _ERRORS:
        pass
    # single quotes, True/None, trailing commas: Python literal syntax; JSON's true/false/null are
    # rewritten only when needed, since the rewrite would also touch words inside strings
    for text in (candidate, _JSON_WORDS.sub(lambda m: _PY_WORDS[m.group(1)], candidate)):
        try:
            return ast.literal_eval(text), "python"
        except _ERRORS:
            continue
    return None


def _fence_ranges(text: str) -> list[tuple[int, int]]:
    return [(m.start(2), m.end(2)) for m in FENCE.finditer(text)]


@register_parser("json")
def json_parser(text: str, sample: Sample, /, *, want: str = "object") -> ParseOutcome:
    """The last valid JSON value of kind ``want`` (object, array, any) in the response.

    Code fences are looked into like any text (``how`` says when the answer sat in one); single
    quotes, Python literals and trailing commas are repaired; JSON nested as strings is decoded.
    Only the last 100,000 characters are read and at most 200 candidates tried.
    """
    if want not in _WANT:
        raise ParseError(f"parser 'json': want must be one of {sorted(_WANT)}, not {want!r}")
    text = text[-MAX_JSON_CHARS:]
    fences = _fence_ranges(text) if "```" in text else []
    for start, end in reversed(bracket_spans(text)):
        loaded = _load(text[start:end])
        if loaded is not None and isinstance(loaded[0], _WANT[want]):
            where = "fence" if any(a <= start and end <= b for a, b in fences) else "text"
            return Parsed(value=_inflate(loaded[0]), how=f"{where}:{loaded[1]}")
    return ParseFailure(reason=f"no valid JSON {want} in the response")


@register_parser("python_literal")
def python_literal(text: str, sample: Sample, /, *, max_chars: int = 10_000) -> ParseOutcome:
    """A Python literal (list, dict, tuple, set, number, string) via ``ast.literal_eval``, size-bounded.

    The whole (fence-unwrapped) answer is tried first, then its last bracketed span.
    """
    if len(text) > 2 * max_chars:  # bound the fence search too
        return ParseFailure(reason=f"answer is {len(text)} characters, over the {max_chars} limit")
    body, fenced = unwrap_fence(text)
    body = body.strip()
    if len(body) > max_chars:
        return ParseFailure(reason=f"answer is {len(body)} characters, over the {max_chars} limit")
    if _too_deep(body):
        return ParseFailure(reason=f"answer nests deeper than {MAX_NESTING} brackets")
    prefix = "fence:" if fenced else ""
    try:
        return Parsed(value=ast.literal_eval(body), how=f"{prefix}whole")
    except _ERRORS:
        pass
    for start, end in reversed(bracket_spans(body, openers="{[(")):
        try:
            return Parsed(value=ast.literal_eval(body[start:end]), how=f"{prefix}span")
        except _ERRORS:
            continue
    return ParseFailure(reason="no Python literal in the response")
