"""Password hashes computed by a few threads of their own, at a lower CPU priority than requests.

An argon2 hash takes ~60-150 ms of CPU and 64 MiB. Computed in request threads, a login spray took the
cores from everybody else: even one hash at a time kept a core busy, and argon2 computes its 4 lanes in
threads of its own, so one hash at a time still used both cores of a 2-core machine. Here hashes run only
in this pool's ``workers`` threads (1 on fewer than 4 cores, at most 2), each niced ``nice`` steps on Linux
(the nice value is per thread there, and the lane threads argon2 starts inherit it): when the readers want
the CPU they get it first, and a login waits a little longer. At most ``pending`` hashes are running or
waiting; past that a caller is told "busy" at once. Callers block until their hash is done; the login gate
(``routes/login_gate.py``) lets only a few requests that hash into the app at once, fairly between networks.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from omnieval.platform.errors import Busy
from omnieval.platform.settings import HASH_WORKERS

__all__ = ["BUSY", "HashPool"]

log = logging.getLogger(__name__)
T = TypeVar("T")

BUSY = "the server is busy checking passwords; try again in a moment"


class HashPool:
    """``workers`` dedicated threads computing hashes; ``pending`` jobs at most running or waiting."""

    def __init__(
        self, *, workers: int = HASH_WORKERS, pending: int = 10, nice: int = 10, wait_s: float = 10.0
    ) -> None:
        if workers < 1 or pending < workers:
            raise ValueError(
                f"a hashing pool needs workers >= 1 and pending >= workers: {workers}, {pending}"
            )
        self.workers, self.pending, self.nice, self.wait_s = workers, pending, nice, wait_s
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]] = queue.SimpleQueue()
        self._slots = threading.BoundedSemaphore(pending)
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` computed in one of the pool's threads; :class:`Busy` at once when ``pending`` jobs
        are already in, or after ``wait_s`` without a result (the job is then dropped if not yet started)."""
        if not self._slots.acquire(blocking=False):
            raise Busy(BUSY)
        future: Future[T] = Future()
        try:
            self._start()
            self._jobs.put((future, fn))
            return future.result(timeout=self.wait_s)
        except FutureTimeout:
            future.cancel()
            raise Busy(BUSY) from None
        finally:
            self._slots.release()

    def _start(self) -> None:
        with self._lock:
            while len(self._threads) < self.workers:
                name = f"password-hash-{len(self._threads)}"
                thread = threading.Thread(target=self._work, name=name, daemon=True)
                thread.start()
                self._threads.append(thread)

    def _work(self) -> None:
        _lower_priority(self.nice)
        while True:
            future, fn = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue  # its caller gave up waiting
            try:
                future.set_result(fn())
            except BaseException as exc:  # the caller re-raises it (a wrong password is an exception)
                future.set_exception(exc)


def _lower_priority(steps: int) -> None:
    """Nice the calling thread only (Linux: per-thread nice values; elsewhere it would nice the process)."""
    if steps <= 0 or not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + steps)
    except OSError as exc:  # e.g. a sandbox refusing setpriority: hashes run at normal priority
        log.warning("password hashing keeps normal priority: %s", exc)
