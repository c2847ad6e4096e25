"""The parser registry and protocol.

A parser is a pure function ``(text, sample, **options) -> Parsed | ParseFailure``. Options come
from the task file and are checked against the function's keyword-only signature at load time.

A parser whose answer for one sample depends on the task's other samples (MMMU's guesses, drawn from one
random stream in the authors' order) registers a ``settle`` step beside it: it runs once over the task's
stored records when the run is aggregated (:mod:`omnieval.aggregate.settle`) and returns the fields of
the records it changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from omnieval.registry import Registry, check_options
from omnieval.types import ParseOutcome, PluginRef, Sample

__all__ = [
    "ParserFn",
    "TaskSettler",
    "bind_parser",
    "check_options",
    "parsers",
    "register_parser",
    "settler_of",
]


class ParserFn(Protocol):
    def __call__(self, text: str, sample: Sample, /, **options: Any) -> ParseOutcome: ...


class TaskSettler(Protocol):
    """A parser's task-level step: the task's records as ``(index, record dict)`` in file order (one pass,
    keep only what is needed); returns, by index, the fields to replace in the records it changes."""

    def __call__(self, records: Iterable[tuple[int, dict[str, Any]]], /) -> dict[int, dict[str, Any]]: ...


parsers: Registry[Callable[..., ParseOutcome]] = Registry("parser", group="omnieval.parsers")
_settlers: dict[str, TaskSettler] = {}


def register_parser(
    name: str, *, settle: TaskSettler | None = None
) -> Callable[[Callable[..., ParseOutcome]], Callable[..., ParseOutcome]]:
    """Register a parser function under ``name``; ``settle``: its task-level step (see the module)."""
    if settle is not None:
        _settlers[name] = settle
    return parsers.register(name)


def settler_of(ref: PluginRef) -> TaskSettler | None:
    """The task-level step registered with parser ``ref`` (``None`` for almost every parser)."""
    parsers.get(ref.name)  # loads the plugin that registers it
    return _settlers.get(ref.name)


def bind_parser(ref: PluginRef) -> Callable[[str, Sample], ParseOutcome]:
    """Resolve a parser reference into a ready callable (unknown names and options fail here)."""
    fn = parsers.get(ref.name)
    check_options(fn, ref.options, what=f"parser {ref.name!r}", n_positional=2)
    options = dict(ref.options)

    def parse(text: str, sample: Sample) -> ParseOutcome:
        return fn(text, sample, **options)

    return parse
