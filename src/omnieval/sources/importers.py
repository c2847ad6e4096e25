"""Importers: ``--tasks FORMAT:PATH`` turns a foreign dataset layout into tasks."""

from __future__ import annotations

from collections.abc import Callable

from omnieval.registry import Registry
from omnieval.sources.task import Task

__all__ = ["Importer", "importers", "register_importer"]

Importer = Callable[[str], list[Task]]
"""``(path) -> tasks``; raises TaskFileError / SourceError naming file and field on bad data."""

importers: Registry[Importer] = Registry("importer", group="omnieval.importers")


def register_importer(fmt: str) -> Callable[[Importer], Importer]:
    """Register an importer for ``--tasks FMT:PATH``."""
    return importers.register(fmt)
