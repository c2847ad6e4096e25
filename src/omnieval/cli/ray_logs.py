"""Ray's own output of an ``omnieval run --executor ray``, in ``OUTPUT/ray.log`` instead of the terminal.

Ray prints on the driver what its cluster reports (a lost node's ``(raylet) ...`` lines, an object-store
dump of some 25 lines) from its own background threads, logs through the ``ray`` logger, and its C++ core
worker writes its errors (``core_worker.cc`` lines) straight to file descriptor 2. For the length of the
run, the console script (never the library: that would change the caller's process) sends all three to the
run folder's ``ray.log``: the threads' lines and the logger's records by Python, and descriptor 2 itself,
pointed at the file while omnieval's own messages and progress go to a copy of the terminal's descriptor.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["RAY_LOG", "ray_output_to_file"]

RAY_LOG = "ray.log"
_RAY_THREADS = "ray_"
"""Ray names the driver's threads that print what the cluster reports ``ray_listen_error_messages``,
``ray_print_logs``."""


class _Split:
    """A text stream: what Ray's threads write goes to ``log``, everything else to ``terminal``."""

    def __init__(self, terminal: IO[str], log: IO[str]) -> None:
        self.terminal, self.log = terminal, log

    def _target(self) -> IO[str]:
        return self.log if threading.current_thread().name.startswith(_RAY_THREADS) else self.terminal

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self.terminal.flush()
        self.log.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding...: the terminal's
        return getattr(self.terminal, name)


@contextmanager
def _descriptor_2_to(log: IO[str]) -> Iterator[IO[str]]:
    """For the ``with`` block, file descriptor 2 (where Ray's C++ code writes) is ``log``'s; yields the
    stream omnieval's own error output goes to: a copy of the terminal's descriptor where ``sys.stderr``
    wrote to descriptor 2, else ``sys.stderr`` itself (a stream of its own, as under a test's capture)."""
    try:
        on_2 = sys.stderr.fileno() == 2
    except (AttributeError, OSError, ValueError):
        on_2 = False
    sys.stderr.flush()
    try:
        terminal = os.dup(2)
    except OSError:  # no descriptor 2 at all (a closed stderr): nothing to divert
        terminal = -1
    if terminal < 0:
        yield sys.stderr
        return
    try:
        os.dup2(log.fileno(), 2)
        try:
            if not on_2:
                yield sys.stderr
                return
            errors = sys.stderr.errors or "backslashreplace"
            with open(terminal, "w", encoding=sys.stderr.encoding, errors=errors, closefd=False) as copy:
                copy.reconfigure(line_buffering=True)
                yield copy
        finally:
            log.flush()
            os.dup2(terminal, 2)
    finally:
        os.close(terminal)


@contextmanager
def ray_output_to_file(output: Path) -> Iterator[Path]:
    """For the ``with`` block, Ray's own lines and log records go to ``output/ray.log``."""
    output.mkdir(parents=True, exist_ok=True)
    path = output / RAY_LOG
    with contextlib.suppress(ImportError):  # importing Ray gives its logger a terminal handler: first,
        import ray  # noqa: F401  so that the one below replaces it (the run imports Ray anyway)
    ray_logger = logging.getLogger("ray")
    with path.open("a", encoding="utf-8", buffering=1) as log, _descriptor_2_to(log) as terminal:
        handler = logging.StreamHandler(log)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        kept = (ray_logger.handlers[:], ray_logger.propagate, sys.stdout, sys.stderr)
        ray_logger.handlers[:] = [handler]
        ray_logger.propagate = False
        sys.stdout, sys.stderr = _Split(sys.stdout, log), _Split(terminal, log)  # type: ignore[assignment]
        try:
            yield path
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            ray_logger.handlers[:], ray_logger.propagate, sys.stdout, sys.stderr = kept
