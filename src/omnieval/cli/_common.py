"""Shared CLI helpers: clean error exits, key=value options, console."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer

__all__ = ["comma_joined", "fail", "friendly_errors", "generation_overrides", "parse_kv", "print_json"]



def fail(message: str, *, code: int = 2) -> None:
    """Print a one-line error (no traceback) and exit."""
    print(f"omnieval: error: {message}", file=sys.stderr)
    raise typer.Exit(code)


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn omnieval's own errors into a clean message and exit code 2."""
    from omnieval.errors import OmnievalError

    try:
        yield
    except OmnievalError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; finished samples are saved, run the same command again to resume", code=130)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def comma_joined(values: list[str] | None) -> str:
    """A comma-separated list option given once or repeated, as one comma-separated value
    (``--tasks a,b --tasks c`` → ``"a,b,c"``; once: unchanged). Click keeps only the last value of a
    repeated plain option, so these options are declared as lists and joined here."""
    return ",".join(values or ())


def generation_overrides(
    *, temperature: float | None, max_tokens: int | None, top_p: float | None, stop: list[str] | None, seed: int | None
) -> dict[str, Any]:
    """The decoding options given on the command line (the model's or the judge's), unset ones left out."""
    given = {"temperature": temperature, "max_tokens": max_tokens, "top_p": top_p,
             "stop": tuple(stop) if stop else None, "seed": seed}  # fmt: skip
    return {k: v for k, v in given.items() if v is not None}


def parse_kv(pairs: list[str] | None, *, option: str) -> dict[str, Any]:
    """``["a=1", "b=x"]`` → ``{"a": 1, "b": "x"}`` (values parsed as JSON when they are)."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            fail(f"{option} expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = _value(value)
    return out


def print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


