"""Shared CLI helpers: clean error exits, key=value options, console."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

__all__ = [
    "check_run_dirs",
    "comma_joined",
    "fail",
    "friendly_errors",
    "parse_kv",
    "print_json",
]


def fail(message: str, *, code: int = 2) -> None:
    """Print a one-line error (no traceback) and exit."""
    print(f"omnieval: error: {message}", file=sys.stderr)
    raise typer.Exit(code)


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn omnieval's own errors, and a missing optional package, into a clean message and exit code 2."""
    from omnieval.errors import OmnievalError

    try:
        yield
    except OmnievalError as exc:
        fail(str(exc), code=getattr(exc, "exit_code", 2))
    except KeyboardInterrupt:
        fail("interrupted; finished samples are saved, run the same command again to resume", code=130)
    except ModuleNotFoundError as exc:  # an optional package this command needs is not installed
        if not exc.name or exc.name.partition(".")[0] == "omnieval":
            raise
        fail(missing_package_message(exc.name))


def missing_package_message(module: str) -> str:
    """Which extra brings ``module``, read from omnieval's own requirements (``name…; extra == "x"``)."""
    import re
    from importlib.metadata import PackageNotFoundError, requires

    top = module.partition(".")[0]
    wanted = re.sub(r"[-_.]+", "-", top).lower()
    try:
        lines = requires("omnieval") or []
    except PackageNotFoundError:  # run from a source tree that was never installed
        lines = []
    extras = sorted(
        {
            m.group(2)
            for line in lines
            if (m := re.match(r'\s*([A-Za-z0-9_.-]+).*extra\s*==\s*"([^"]+)"', line))
            and re.sub(r"[-_.]+", "-", m.group(1)).lower() == wanted
        }
    )
    if extras:
        return f"this command needs the optional package {top!r}: pip install 'omnieval[{extras[0]}]'"
    return (
        f"this command needs the optional package {top!r}, which is not installed (see the extras in the "
        "README)"
    )


def comma_joined(values: list[str] | None) -> str:
    """A comma-separated list option given once or repeated, as one comma-separated value
    (``--tasks a,b --tasks c`` → ``"a,b,c"``; once: unchanged). Click keeps only the last value of a
    repeated plain option, so these options are declared as lists and joined here."""
    return ",".join(values or ())


def parse_kv(pairs: list[str] | None, *, option: str) -> dict[str, Any]:
    """``["a=1", "b=x"]`` → ``{"a": 1, "b": "x"}`` (values parsed as JSON when they are), as the run
    options read theirs (:func:`omnieval.options.fields.key_values`); a malformed pair is one line naming
    ``option``."""
    from omnieval.options.fields import key_values

    try:
        return dict(key_values(pairs or []))
    except ValueError as exc:
        fail(f"{option} {exc}")
        raise  # not reached: fail exits


def check_run_dirs(paths: list[Path], *, needs: tuple[str, ...] = ("samples.jsonl",)) -> None:
    """Fail with one line saying what is missing unless every path is a run folder holding ``needs``.

    Called before a command reads anything: a typo or a file given for a folder never ends in a traceback."""
    for path in paths:
        if not path.exists():
            fail(f"run folder {path} does not exist")
        if not path.is_dir():
            fail(f"{path} is a file, not a run folder (give the folder that holds {', '.join(needs)})")
        missing = [name for name in needs if not (path / name).is_file()]
        if missing:
            fail(f"{path} is not an omnieval run folder: no {' or '.join(missing)} in it")


def print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
