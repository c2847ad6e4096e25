"""Parse stage: response text → ``Parsed | ParseFailure``."""

from omnieval.parsers.base import (
    ParserFn,
    TaskSettler,
    bind_parser,
    check_options,
    parsers,
    register_parser,
    settler_of,
)

__all__ = [
    "ParserFn",
    "TaskSettler",
    "bind_parser",
    "check_options",
    "parsers",
    "register_parser",
    "settler_of",
]
