"""Live progress: a rich bar per task (ETA, throughput, errors, parse failures, retries); where stderr is
no terminal (a log file, a pipe) a plain line per task every ``LINE_EVERY_S`` seconds and one as it
finishes; nothing under ``quiet``."""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["LINE_EVERY_S", "Progress", "status_line"]

LINE_EVERY_S = 30.0
"""Seconds between a task's plain progress lines where stderr is no terminal (a 158 s run printed
nothing in between)."""


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
        self._totals: dict[str, int | None] = {}
        self._printed: dict[str, float] = {}
        self.line_every_s = LINE_EVERY_S
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
        self._started[name] = self._printed[name] = time.perf_counter()
        self._totals[name] = total
        if self._rich is not None:
            self._ids[name] = self._rich.add_task(name, total=total, completed=done, rate="-", info="")

    def update(self, name: str, *, done: int, states: dict[str, int], retries: int = 0) -> None:
        """``retries``: backend calls retried so far in the whole run (model and judges), so a struggling
        server shows up while it happens rather than only in the report."""
        self._last[name] = time.perf_counter()
        self._retries = retries
        if self._rich is None:
            self._plain_line(name, done=done, states=states)
            return
        elapsed = max(time.perf_counter() - self._started[name], 1e-9)
        self._rich.update(
            self._ids[name],
            completed=done,
            rate=f"{sum(states.values()) / elapsed:.1f}",
            info=status_line(states, retries=retries),
        )

    def _plain_line(self, name: str, *, done: int, states: dict[str, int]) -> None:
        """Every ``line_every_s`` seconds, a task's progress as one plain line (no terminal to redraw)."""
        now = time.perf_counter()
        if self.silent or now - self._printed.get(name, now) < self.line_every_s:
            return
        self._printed[name] = now
        total = self._totals.get(name)
        rate = sum(states.values()) / max(now - self._started[name], 1e-9)
        print(
            f"[omnieval] {name}: {done}/{total if total is not None else '?'} samples, {rate:.1f}/s, "
            f"{status_line(states, retries=self._retries)}",
            file=sys.stderr,
            flush=True,
        )

    def finish(self, name: str, *, states: dict[str, int]) -> None:
        if self.quiet and not self.silent and not sum(states.values()):
            print(
                f"[omnieval] {name}: nothing left to do (every sample this run takes is already recorded)",
                file=sys.stderr,
            )
        elif self.quiet and not self.silent:
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
