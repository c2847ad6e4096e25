"""The Ray executor's error, apart so that each of its parts can raise it without importing the others."""

from __future__ import annotations

from omnieval.errors import OmnievalError

__all__ = ["ExecutorError", "last_line"]


class ExecutorError(OmnievalError):
    """The cluster could not finish the run (a shard lost its worker too often, Ray missing)."""


def last_line(exc: BaseException) -> str:
    """An exception's last line (a remote traceback's is its error), for a message."""
    text = str(exc).strip()
    return (text.splitlines()[-1] if text else type(exc).__name__)[:500]
