"""jinja2 rendering with strict undefined variables and a compiled-template cache."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import jinja2

from omnieval.errors import TaskFileError

__all__ = ["render_template"]

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)


@lru_cache(maxsize=512)
def _compile(source: str) -> jinja2.Template:
    try:
        return _ENV.from_string(source)
    except jinja2.TemplateSyntaxError as exc:
        raise TaskFileError(f"template syntax error at line {exc.lineno}: {exc.message}") from None


def render_template(source: str, **variables: Any) -> str:
    """Render ``source``; an undefined variable is an error, not an empty string."""
    plain = _plain(source)
    if plain is not None and all(name in variables for name in plain[1]):
        texts, names = plain
        return texts[0] + "".join(str(variables[n]) + text for n, text in zip(names, texts[1:], strict=True))
    try:
        return _compile(source).render(**variables)
    except jinja2.UndefinedError as exc:
        raise TaskFileError(f"template uses an undefined variable: {exc.message}") from None


_PLACEHOLDER = re.compile(r"\{\{ ?([A-Za-z_][A-Za-z0-9_]*) ?\}\}")
_TEXT = re.compile(r"(?:[^{\r]|\{(?![{%#]))*")
"""Template text with nothing jinja reads in it (no ``{{``, ``{%``, ``{#``; no ``\\r``, which jinja
rewrites)."""
_JINJA_WORDS = frozenset({"true", "false", "none", "True", "False", "None", "loop", "recursive"}) | frozenset(
    {"and", "or", "not", "in", "is", "if", "else", "elif", "for", "endfor"}
)
"""Names jinja reads as literals or syntax, not as variables: such a template goes through jinja."""


@lru_cache(maxsize=512)
def _plain(source: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``source`` as its text pieces and variable names when it holds only text and ``{{ name }}``
    (most task templates, e.g. ``{{ input }}``); ``None`` otherwise. Joining them renders what jinja
    renders (each value through ``str``, one trailing newline dropped as ``keep_trailing_newline=False``
    drops it) at a tenth of the cost, on every request of a run."""
    body = source[:-1] if source.endswith("\n") else source
    texts: list[str] = []
    names: list[str] = []
    cursor = 0
    for match in _PLACEHOLDER.finditer(body):
        texts.append(body[cursor : match.start()])
        names.append(match.group(1))
        cursor = match.end()
    texts.append(body[cursor:])
    if set(names) & _JINJA_WORDS or any(t.endswith("{") or not _TEXT.fullmatch(t) for t in texts):
        return None
    return tuple(texts), tuple(names)
