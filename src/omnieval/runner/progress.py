"""Live progress: a rich bar per task (ETA, throughput, errors, parse failures, retries), a log line per
task where stderr is no terminal, or nothing under ``quiet``."""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["Progress", "status_line"]


def status_line(states: dict[str, int], *, retries: int) -> str:
    """The live counters after a task's bar: non-ok states, then the run's retries when there were any."""
    info = f"err {states.get('error', 0)} · parse✗ {states.get('parse_failed', 0)}"
    info += f" · trunc {states.get('truncated', 0)} · skip {states.get('skipped', 0)}"
    if states.get("judge_failed"):
        info += f" · judge✗ {states['judge_failed']}"
    return info + (f" · retries {retries}" if retries else "")


class Progress:
    """Thin wrapper so the runner does not care whether output is rich or quiet."""

    def __init__(self, *, quiet: bool, elapsed_label: str = "task busy") -> None:
        """``elapsed_label`` names the time on a row's quiet line: a task's busy time (tasks of a run overlap)
        or, for a sweep's one row per model, that model's run wall time."""
        self.silent = quiet
        """``quiet``: nothing at all (warnings and errors are printed by whoever has them)."""
        self.quiet = quiet or not sys.stderr.isatty()
        """No bars: a line per finished task instead (a log file, a pipe), or nothing when ``silent``."""
        self.elapsed_label = elapsed_label
        self._rich: Any = None
        self._ids: dict[str, Any] = {}
        self._started: dict[str, float] = {}
        self._last: dict[str, float] = {}
        self._retries = 0
        if not self.quiet:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._rich = RichProgress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]:>7} /s"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[info]}"),
                refresh_per_second=4,
                transient=False,
            )

    def __enter__(self) -> Progress:
        if self._rich is not None:
            self._rich.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._rich is not None:
            self._rich.__exit__(*exc)

    def add(self, name: str, total: int | None, *, done: int = 0) -> None:
        self._started[name] = time.perf_counter()
        if self._rich is not None:
            self._ids[name] = self._rich.add_task(name, total=total, completed=done, rate="-", info="")

    def update(self, name: str, *, done: int, states: dict[str, int], retries: int = 0) -> None:
        """``retries``: backend calls retried so far in the whole run (model and judges), so a struggling
        server shows up while it happens rather than only in the report."""
        self._last[name] = time.perf_counter()
        self._retries = retries
        if self._rich is None:
            return
        elapsed = max(time.perf_counter() - self._started[name], 1e-9)
        self._rich.update(
            self._ids[name],
            completed=done,
            rate=f"{sum(states.values()) / elapsed:.1f}",
            info=status_line(states, retries=retries),
        )

    def finish(self, name: str, *, states: dict[str, int]) -> None:
        if self.quiet and not self.silent:
            counts = " ".join(f"{k}={v}" for k, v in sorted(states.items()))
            counts += f"; {self._retries} retries so far in the run" if self._retries else ""
            now = time.perf_counter()
            elapsed = self._last.get(name, now) - self._started.get(name, now)
            # tasks run side by side, so their busy times overlap: the run's wall time is printed once at the
            # end
            label = self.elapsed_label
            print(
                f"[omnieval] {name}: {sum(states.values())} new samples, {label} {elapsed:.1f}s ({counts})",
                file=sys.stderr,
            )
