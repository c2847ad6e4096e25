"""Bounded-time calls for metrics that may run away (sympy, constraint checks).

In the main thread a ``SIGALRM`` timer interrupts the call, as MEGA-Bench itself does; elsewhere the
call runs in a daemon thread and the caller stops waiting at the deadline (the thread is abandoned).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["MetricTimeout", "call_with_timeout"]

T = TypeVar("T")


class MetricTimeout(Exception):
    """A metric step ran past its time limit."""


def _raise_timeout(signum: int, frame: Any) -> None:
    raise MetricTimeout()


def _with_alarm(fn: Callable[[], T], seconds: float) -> T:
    previous = signal.signal(signal.SIGALRM, _raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _with_thread(fn: Callable[[], T], seconds: float) -> T:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed back to the caller below
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True, name="megabench-metric")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise MetricTimeout()
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


def call_with_timeout(fn: Callable[[], T], seconds: float) -> T:
    """Run ``fn()``; raise :class:`MetricTimeout` when it takes longer than ``seconds``."""
    in_main = threading.current_thread() is threading.main_thread()
    if in_main and signal.getitimer(signal.ITIMER_REAL)[0] == 0:
        return _with_alarm(fn, seconds)
    return _with_thread(fn, seconds)
