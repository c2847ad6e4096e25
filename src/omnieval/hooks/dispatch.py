"""Calling hooks off the event loop: one thread, one bounded queue, every failure counted."""

from __future__ import annotations

import importlib.util
import queue
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from omnieval.errors import ConfigError
from omnieval.hooks.base import HookInfo, RunHook, hooks

if TYPE_CHECKING:
    from omnieval.types.files import ResultsFile

__all__ = ["NO_HOOKS", "HookDispatcher", "open_hooks"]

QUEUE_SIZE = 10_000
"""Events waiting for the hooks; beyond this a record is dropped (and counted) rather than wait."""


@dataclass
class _Tally:
    failures: int = 0
    first_error: str | None = None
    events: dict[str, int] = field(default_factory=dict)


class HookDispatcher:
    """Delivers run events to hooks on a daemon thread; ``emit`` never blocks and never raises."""

    def __init__(self, named: Sequence[tuple[str, RunHook]], *, maxsize: int = QUEUE_SIZE) -> None:
        self.named = list(named)
        self.tallies = {name: _Tally() for name, _ in self.named}
        self.dropped = 0
        self._queue: queue.Queue[tuple[str, tuple[Any, ...], dict[str, Any]] | None] = queue.Queue(
            maxsize=maxsize
        )
        self._thread: threading.Thread | None = None
        if self.named:
            self._thread = threading.Thread(target=self._loop, name="omnieval-hooks", daemon=True)
            self._thread.start()

    def __bool__(self) -> bool:
        return bool(self.named)

    def emit(self, event: str, *args: Any, **kwargs: Any) -> None:
        """Queue ``event`` for every hook; a full queue drops it (counted), the run never waits."""
        if not self.named:
            return
        try:
            self._queue.put_nowait((event, args, kwargs))
        except queue.Full:
            self.dropped += 1

    def run_started(self, info: HookInfo) -> None:
        self.emit("run_started", info)

    def record(self, record: Any, *, prompt: str | None = None, media: tuple[Any, ...] = ()) -> None:
        """``record``: the JSON line written to ``samples.jsonl`` (text or bytes, parsed on the hook thread)
        or its dict."""
        self.emit("record", record, prompt=prompt, media=media)

    def task_finished(self, task: str, states: dict[str, int]) -> None:
        self.emit("task_finished", task, dict(states))

    def run_finished(self, run_dir: Path, results: ResultsFile) -> None:
        self.emit("run_finished", run_dir, results)

    def run_failed(self, run_dir: Path, error: str) -> None:
        self.emit("run_failed", run_dir, error)

    def close(self, *, timeout_s: float | None = None) -> dict[str, Any]:
        """Wait for queued events to be delivered; the report of failures per hook (``results["hooks"]``)."""
        if self._thread is not None:
            self._queue.put(None)  # the run is over: waiting here delays nothing
            self._thread.join(timeout_s)
            self._thread = None
        return self.report()

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            name: {"failures": t.failures, "first_error": t.first_error, "events": dict(t.events)}
            for name, t in self.tallies.items()
        }
        if self.dropped:
            out["dropped_events"] = self.dropped
        return out

    def _loop(self) -> None:
        while (item := self._queue.get()) is not None:
            event, args, kwargs = item
            if event == "record" and isinstance(args[0], str | bytes):
                args = (orjson.loads(args[0]),)
            for name, hook in self.named:
                self._call(name, hook, event, args, kwargs)

    def _call(
        self, name: str, hook: RunHook, event: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        tally = self.tallies[name]
        tally.events[event] = tally.events.get(event, 0) + 1
        try:
            getattr(hook, event)(*args, **kwargs)
        except Exception as exc:  # a hook's failure is counted, never spread into the evaluation
            tally.failures += 1
            if tally.first_error is None:
                tally.first_error = f"{event}: {type(exc).__name__}: {exc}"


NO_HOOKS = HookDispatcher(())


def _check_extra(name: str, cls: type[RunHook]) -> None:
    if cls.requires and importlib.util.find_spec(cls.requires) is None:
        extra = cls.extra or name
        raise ConfigError(
            f"--log-to {name} needs the optional extra {extra!r} ({cls.requires} is not installed): "
            f"pip install 'omnieval[{extra}]'"
        )


def open_hooks(names: Iterable[str], extra: Iterable[RunHook] = ()) -> HookDispatcher:
    """Hooks named in ``--log-to`` (checked: unknown name, missing extra) plus hook objects from Python."""
    classes = [(name, hooks.get(name)) for name in names]
    for name, cls in classes:
        _check_extra(name, cls)
    named = [(name, cls()) for name, cls in classes]
    named += [(type(h).__name__, h) for h in extra]
    return HookDispatcher(named)
