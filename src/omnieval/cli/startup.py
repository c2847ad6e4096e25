"""The process-wide tuning of an ``omnieval`` command: garbage collection, the GIL's switch interval
and pydantic's plugins. Only the console script's process is tuned (:func:`omnieval.cli.main` calls
:func:`start` and :func:`finish`; ``omnieval run`` calls :func:`tune_for_the_requests` once set up); the
same commands run inside another process (typer's test runner) and every library call
(:mod:`omnieval.api`) leave that process's collector, switch interval and environment alone.

Why each setting exists, with its measurements: docs/dev/performance.md ("third pass").
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
from collections.abc import Iterator

__all__ = ["GC_THRESHOLDS", "finish", "short_gil_slices", "start", "tune_for_the_requests"]

INSTRUMENTED = frozenset({"serve", "platform"})
"""Commands whose web application a user may observe through pydantic plugins (logfire's, say): their
plugins load as usual."""

GC_THRESHOLDS = (20_000, 10, 10)
"""Young objects collected every 20,000 allocations (Python's default: 700), the older generations every
10 collections of the one below."""

_tuned_run = False
"""Whether this process is ``omnieval run`` started by :func:`start` (collection off until its requests)."""


def start(command: str) -> None:
    """Before the command ``command`` is parsed: ``run`` sets up with collection off (its set-up allocates
    what lives until exit; :func:`tune_for_the_requests` turns collection back on), and pydantic's plugins
    stay unloaded except for the web commands."""
    global _tuned_run
    if command == "run":
        gc.disable()
        _tuned_run = True
    if command not in INSTRUMENTED:
        # pydantic looks for its plugins in every installed distribution's entry points as the first
        # model is made (≈ 20 ms of every command's start-up, a tenth of what `omnieval run` adds to its
        # requests); omnieval's own models have nothing for them to observe. A value the user set is
        # kept (an empty one loads every plugin): docs/dev/performance.md
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


def tune_for_the_requests() -> None:
    """``omnieval run``, set up, about to send its requests: the collector turned back on, tuned for a
    process that keeps what it imported until it exits, and the tail's warm-up thread loading with short
    GIL slices. Does nothing in a process :func:`start` did not start for ``run``.

    The objects made during the set-up (modules, classes, models, the configuration) are frozen out of
    every later collection, and young objects are collected less often: collections went over the
    set-up's objects again and again, ≈ 70 ms of a 2,000-request run's CPU, ≈ 20 ms after. Garbage cycles
    left by the set-up stay until exit (one-off, a few kB)."""
    global _tuned_run
    if not _tuned_run:
        return
    _tuned_run = False
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    gc.enable()
    from omnieval.reports import tail

    tail.load_with(short_gil_slices)


def finish() -> None:
    """The process ends here: what is still alive lives until exit, and the interpreter's last garbage
    collections over every module and object cost a 2,000-sample run ≈ 0.1-0.15 s after its work was
    done. Frozen objects are left out of them (references still drop and close files as usual)."""
    gc.freeze()


class _SwitchInterval:
    """Shorter GIL time slices while the tail's warm-up thread loads beside the event loop, then the
    interpreter's own.

    Each time a response wakes the loop, its thread waits for the GIL until the warm-up's slice ends
    (5 ms by default): over a warm-up's ≈ 0.2 s of imports that stretched a 2,000-request run at 50 ms
    latency by ≈ 0.4 s (measured). Nested and concurrent warm-ups restore the interval only when the last
    one ends."""

    SLICE_S = 0.0005

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._saved = 0.0

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._active == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(self._saved, self.SLICE_S))
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if self._active == 0:
                    sys.setswitchinterval(self._saved)


short_gil_slices = _SwitchInterval()
