"""The hook interface and its registry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from omnieval.registry import Registry

if TYPE_CHECKING:
    from omnieval.types.files import ResultsFile

__all__ = ["HookInfo", "RunHook", "hooks", "register_hook"]


@dataclass(frozen=True)
class HookInfo:
    """What a hook knows when the run starts: its folder and the run's configuration (no API keys)."""

    run_dir: Path
    config: dict[str, Any]


class RunHook:
    """Base of every hook; each method is called on the dispatcher's thread, in event order.

    ``requires`` (an importable module) and ``extra`` (the omnieval extra that brings it) let a missing
    tracker be named before the run starts. Every method may raise: the error is counted, never spread.
    """

    requires: ClassVar[str | None] = None
    extra: ClassVar[str | None] = None

    def run_started(self, info: HookInfo) -> None:
        """The run (or its resumption) begins; nothing has been requested yet."""

    def record(
        self, record: dict[str, Any], *, prompt: str | None = None, media: tuple[Any, ...] = ()
    ) -> None:
        """One finished sample, as the line written to ``samples.jsonl``; ``prompt`` is the rendered request
        as text (``None`` when it could not be rendered), ``media`` the sample's ``MediaRef`` inputs."""

    def task_finished(self, task: str, states: dict[str, int]) -> None:
        """Every sample of ``task`` this invocation ran has finished; ``states`` counts them by state."""

    def run_finished(self, run_dir: Path, results: ResultsFile) -> None:
        """``results.json`` and ``report.html`` are written; ``results`` is that file, typed."""

    def run_failed(self, run_dir: Path, error: str) -> None:
        """The run stopped on an error (it stays resumable); ``error`` is its one-line message."""


hooks: Registry[type[RunHook]] = Registry("run hook", group="omnieval.hooks")


def register_hook(name: str) -> Callable[[type[RunHook]], type[RunHook]]:
    """Register a :class:`RunHook` subclass under ``name`` (``--log-to NAME``)."""
    return hooks.register(name)
