"""Value coercions MEGA-Bench's metrics apply to parsed fields and gold answers.

MEGA-Bench scores every field from strings (the parser hands ``str(obj)`` on), so most metrics
first turn a string back into a set, list, dict, box list or point. These helpers reproduce the
original coercions, quirks included, because the per-sample score depends on them.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
from collections.abc import Callable
from numbers import Number
from typing import Any

from omnieval.textkit.nesting import nesting_depth

__all__ = [
    "MAX_LITERAL_CHARS",
    "cast_to_dict",
    "cast_to_set",
    "evaluate_as_string",
    "fenced_block",
    "freeze",
    "parse_bboxes_from_xml",
    "parse_json",
    "parse_point_from_xml",
    "safe_literal",
    "str_to_bboxes",
    "str_to_coords",
    "str_to_iterable",
    "str_to_list",
    "str_to_set",
]

MAX_LITERAL_CHARS = 200_000
"""Longer strings are never handed to ``ast.literal_eval`` (its parser recursion is unbounded)."""
_MAX_DEPTH = 190
_JSON_CANDIDATES = 2_000


def _too_deep(text: str) -> bool:
    return nesting_depth(text) > _MAX_DEPTH


def safe_literal(text: str) -> Any:
    """``ast.literal_eval`` bounded in size and nesting; raises ValueError like the original would.

    A non-string raises ValueError too: the original hands numbers to ``literal_eval``, which fails.
    """
    if not isinstance(text, str):
        raise ValueError(f"not a string: {type(text).__name__}")
    if len(text) > MAX_LITERAL_CHARS or _too_deep(text):
        raise ValueError("literal too large or too deeply nested")
    try:
        return ast.literal_eval(text)
    except (MemoryError, RecursionError) as exc:
        raise ValueError(str(exc)) from exc


def evaluate_as_string(value: Any) -> Any:
    """Drop redundant quotes: ``"'abc'"`` becomes ``abc``; anything else is returned unchanged."""
    if not isinstance(value, str):
        return value
    try:
        evaluated = safe_literal(value)
    except (ValueError, SyntaxError, TypeError):
        return value
    return evaluated if isinstance(evaluated, str) else value


def freeze(obj: Any) -> Any:
    """A hashable copy: dicts become frozensets of pairs, lists tuples, sets frozensets."""
    if isinstance(obj, dict):
        return frozenset((k, freeze(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return tuple(freeze(v) for v in obj)
    if isinstance(obj, set):
        return frozenset(obj)
    return obj


def str_to_iterable(factory: Callable[..., Any], text: Any) -> Any:
    """MEGA-Bench's ``str_to_iterable``: literal first, else strip brackets and split on commas.

    A bracket opened and not closed gives an empty result; ``None`` gives ``""``; a bare number a
    one-element collection. Non-strings, and literals the collection cannot hold (nested lists in
    a set, a complex number), give an empty collection, as the original's ``TypeError`` branch does.
    """
    if not isinstance(text, str):
        return factory()
    text = text.strip(" ")
    if not text:
        return factory()
    closers = {"(": ")", "{": "}", "[": "]"}
    bracketed = text[0] in closers
    if bracketed and not text.endswith(closers[text[0]]):
        return factory()
    try:
        value = safe_literal(text)
    except (SyntaxError, ValueError):
        inner = text[1:-1] if bracketed else text
        return factory([item.strip() for item in inner.split(",")])
    except TypeError:  # e.g. ``{[1]: 2}``: the original gives up with an empty collection
        return factory()
    if value is None:
        return ""
    if isinstance(value, (int, float)):
        value = [value]
    try:
        return factory(value)
    except TypeError:  # unhashable items (``set([[1, 2]])``) or a non-iterable (``1j``): empty
        return factory()


def str_to_set(text: Any) -> Any:
    return str_to_iterable(set, text)


def str_to_list(text: Any) -> Any:
    return str_to_iterable(list, text)


def cast_to_set(obj: Any) -> Any:
    """Frozen structure as a set; strings go through :func:`str_to_set`."""
    frozen = freeze(obj)
    if isinstance(frozen, (frozenset, set, tuple)):
        return set(frozen)
    return str_to_set(frozen)


def cast_to_dict(obj: Any) -> Any:
    """Dicts recurse; strings are searched for a JSON/Python object; anything else is unchanged."""
    if isinstance(obj, dict):
        return {k: cast_to_dict(v) for k, v in obj.items()}
    if isinstance(obj, str):
        found = parse_json(obj)
        return found if found else obj
    return obj


_ANSWER_LINE = re.compile(r"^(?:\*\*Answer:|Answer:)\s*(.+)", re.MULTILINE)
_STRING_LITERAL = re.compile(r'"(?:\\.|[^"\\])*"')
_LONE_SINGLE_QUOTE = re.compile(r"(?<!\w)'|'(?!\w)")


def _bracket_candidates(text: str) -> list[str]:
    """Top-level ``{...}``/``[...]`` spans exactly as the original recursive regex finds them.

    In that regex a ``{...}`` span is brace-balanced (brackets inside are plain characters), and a
    ``[...]`` span runs greedily to the last ``]`` before an unbalanced brace, so ``[a] and [b]`` is
    one candidate. Precomputed jumps make this linear in the text length.
    """
    n = len(text)
    close_of = [-1] * n
    stack: list[int] = []
    for i, ch in enumerate(text):
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            close_of[stack.pop()] = i
    last_close: list[int] = [-1] * (n + 1)
    for j in range(n - 1, -1, -1):
        ch = text[j]
        if ch == "{" and close_of[j] >= 0:
            last_close[j] = last_close[close_of[j] + 1]
        elif ch in "{}":
            last_close[j] = -1
        elif ch == "]":
            nxt = last_close[j + 1]
            last_close[j] = nxt if nxt >= 0 else j
        else:
            last_close[j] = last_close[j + 1]
    found: list[str] = []
    i = 0
    while i < n and len(found) < _JSON_CANDIDATES:
        ch = text[i]
        end = -1
        if ch == "{" and close_of[i] >= 0:
            end = close_of[i] + 1
        elif ch == "[" and last_close[i + 1] >= 0:
            end = last_close[i + 1] + 1
        if end > 0:
            found.append(text[i:end])
            i = end
        else:
            i += 1
    return found


def _inflate_nested(candidate: str) -> str:
    """Replace string literals that hold JSON objects or arrays by the objects themselves."""
    body = candidate.replace('\\"', "__DQ__").replace("\\'", "__SQ__")
    for literal in _STRING_LITERAL.findall(body):
        inner = literal[1:-1].replace("__DQ__", '"').replace("__SQ__", "'")
        try:
            parsed = json.loads(inner)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(parsed, (dict, list)):
            body = body.replace(literal, json.dumps(parsed))
    return body.replace("__DQ__", '\\"').replace("__SQ__", "\\'")


def _candidate_values(candidate: str) -> list[Any]:
    """Every reading of one candidate the original accepts, in the order it appends them."""
    out: list[Any] = []
    text = _inflate_nested(candidate)
    try:
        out.append(json.loads(text))
    except (json.JSONDecodeError, RecursionError):
        with contextlib.suppress(json.JSONDecodeError, RecursionError):
            out.append(json.loads(_LONE_SINGLE_QUOTE.sub('"', text)))
    for variant in (text, text.replace('\\"', '\\\\"').replace("\\'", "\\\\'")):
        try:
            out.append(safe_literal(variant))
            break
        except (SyntaxError, ValueError, TypeError):
            continue
    return out


def parse_json(response: str) -> Any:
    """MEGA-Bench's tolerant JSON/Python-literal extraction: the last valid bracketed value wins.

    Only the first ``Answer:`` line is looked at when one starts a line; a ```json fence is
    unwrapped. Returns ``{}`` (or ``[]`` when the text starts with ``[``) when nothing parses.
    """
    match = _ANSWER_LINE.search(response)
    text = match.group(1).strip() if match else response.strip()
    text, _ = fenced_block(text, code_type="json")
    valid: list[Any] = []
    for candidate in _bracket_candidates(text):
        valid.extend(_candidate_values(candidate))
    if valid:
        return valid[-1]
    return [] if text.startswith("[") else {}


def str_to_bboxes(text: Any) -> list[Any]:
    """A list of 4-number boxes from a literal string; malformed boxes are skipped."""
    if not isinstance(text, str):
        return []
    try:
        boxes = safe_literal(text)
    except (SyntaxError, ValueError, TypeError):
        try:
            boxes = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            return []
    try:
        if len(boxes) == 4 and isinstance(boxes[0], Number):
            boxes = [boxes]
    except TypeError:
        return []
    if not isinstance(boxes, (tuple, list)):
        return []
    return [
        b
        for b in boxes
        if isinstance(b, (tuple, list)) and len(b) == 4 and all(isinstance(c, (float, int)) for c in b)
    ]


def str_to_coords(text: Any, *, dim: int = 2) -> list[Any]:
    """A list of ``dim``-number points from a literal string."""
    if not isinstance(text, str):
        return []
    try:
        coords = safe_literal(text)
    except SyntaxError:
        try:
            coords = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            return []
    return [
        c
        for c in coords
        if isinstance(c, (tuple, list)) and len(c) == dim and all(isinstance(v, (float, int)) for v in c)
    ]


_POINT = re.compile(r"<point>(.*?)</point>")
_BOX = re.compile(r"<box>(.*?)</box>")


MAX_XML_CHARS = 100_000
"""Longer texts are not searched for tags (the lazy tag patterns are quadratic on them)."""


def parse_point_from_xml(text: Any) -> tuple[float, ...] | None:
    """The single ``<point>x, y</point>``; two or more tags, or a bad number, give None."""
    if not isinstance(text, str) or len(text) > MAX_XML_CHARS:
        return None
    matches = _POINT.findall(text)
    if len(matches) != 1:
        return None
    parts = matches[0].split(",")
    if len(parts) != 2:
        return None
    try:
        return tuple(float(p.strip()) for p in parts)
    except ValueError:
        return None


def parse_bboxes_from_xml(text: Any) -> list[tuple[float, ...]]:
    """Every well-formed ``<box>x1, y1, x2, y2</box>``."""
    if not isinstance(text, str) or len(text) > MAX_XML_CHARS:
        return []
    boxes = []
    for inner in _BOX.findall(text):
        parts = inner.split(",")
        if len(parts) != 4:
            continue
        try:
            boxes.append(tuple(float(p.strip()) for p in parts))
        except ValueError:
            continue
    return boxes


_WORD_RUN = re.compile(r"\w*")


def _leading_ws_end(text: str, start: int, *, through_last_newline: bool) -> int:
    """End of the whitespace run at ``start`` (or just past its last newline, when asked)."""
    end = start
    while end < len(text) and text[end].isspace():
        end += 1
    if not through_last_newline:
        return end
    last = text.rfind("\n", start, end)
    return last + 1 if last >= 0 else start


def fenced_block(
    text: str, *, code_type: str | None = None, keep_spacing: bool = False, trim: bool = True
) -> tuple[str, bool]:
    """The first fenced code block, as the original's lazy regexes find it, in linear time.

    Equivalent to ``re.search`` with ```` ```\\w*\\s*\\n*(.*?)\\s*``` ```` (content stripped), or with
    ``code_type`` in place of ``\\w*``; ``keep_spacing`` is the ASCII-art form
    ```` ```\\w*(?:\\s*\\n+)?(.*?)\\s*``` ```` and, with ``trim=False``, the verbatim form ending in
    ``(?:\\n+\\s*)?```​``. Returns ``(content, found)``; ``(text, False)`` when there is no block.
    """
    opener = "```" + (code_type or "")
    start = text.find(opener)
    if start < 0:
        return text, False
    head = start + len(opener)
    if code_type is None:
        head = _WORD_RUN.match(text, head).end()  # type: ignore[union-attr]
    head = _leading_ws_end(text, head, through_last_newline=keep_spacing)
    close = text.find("```", head)
    if close < 0:
        return text, False
    body = text[head:close]
    if not keep_spacing:
        return body.strip(), True
    if trim:
        return body.rstrip(), True
    tail = len(body) - len(body.rstrip())
    newline = body.find("\n", len(body) - tail)
    return (body[:newline] if newline >= 0 else body), True
