"""The parser registry and protocol.

A parser is a pure function ``(text, sample, **options) -> Parsed | ParseFailure``. Options come
from the task file and are checked against the function's keyword-only signature at load time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from omnieval.registry import Registry, check_options
from omnieval.types import ParseOutcome, PluginRef, Sample

__all__ = ["ParserFn", "bind_parser", "check_options", "parsers", "register_parser"]


class ParserFn(Protocol):
    def __call__(self, text: str, sample: Sample, /, **options: Any) -> ParseOutcome: ...


parsers: Registry[Callable[..., ParseOutcome]] = Registry("parser", group="omnieval.parsers")


def register_parser(name: str) -> Callable[[Callable[..., ParseOutcome]], Callable[..., ParseOutcome]]:
    """Register a parser function under ``name``."""
    return parsers.register(name)


def bind_parser(ref: PluginRef) -> Callable[[str, Sample], ParseOutcome]:
    """Resolve a parser reference into a ready callable (unknown names and options fail here)."""
    fn = parsers.get(ref.name)
    check_options(fn, ref.options, what=f"parser {ref.name!r}", n_positional=2)
    options = dict(ref.options)

    def parse(text: str, sample: Sample) -> ParseOutcome:
        return fn(text, sample, **options)

    return parse
