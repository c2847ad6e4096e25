"""jinja2 rendering with strict undefined variables and a compiled-template cache."""

from __future__ import annotations

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
    try:
        return _compile(source).render(**variables)
    except jinja2.UndefinedError as exc:
        raise TaskFileError(f"template uses an undefined variable: {exc.message}") from None
