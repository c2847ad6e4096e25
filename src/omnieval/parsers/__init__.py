"""Parse stage: response text → ``Parsed | ParseFailure``."""

from omnieval.parsers.base import ParserFn, bind_parser, check_options, parsers, register_parser

__all__ = ["ParserFn", "bind_parser", "check_options", "parsers", "register_parser"]
