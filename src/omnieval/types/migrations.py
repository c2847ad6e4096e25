"""Explicit migrations of older file layouts to the current one, applied to the parsed JSON before
validation: an older file is read as what it meant, never refused and never read half right.

Each migration takes a document of version N and returns one of version N + 1; :func:`migrate` chains
them from the document's ``schema_version`` (absent: 1, a file written before versioning).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["MIGRATIONS", "migrate", "results_v1_to_v2"]

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def results_v1_to_v2(document: dict[str, Any]) -> dict[str, Any]:
    """results.json 1 → 2. Version 1 wrote ``score: 0.0`` (and kept a CI) beside ``scored: false`` for a
    task with nothing scored; version 2 writes ``score: null`` and ``ci95: null``. Version 1's
    ``metrics`` could hold a value that is not a number (a plugin metric's ``None``); version 2's are
    floats only, so such a value is dropped (it was never a score). Every other value is unchanged."""
    out = {**document, "schema_version": 2}
    if isinstance(document.get("tasks"), dict):  # anything else is left for validation to name
        out["tasks"] = {name: _task_v1_to_v2(block) for name, block in document["tasks"].items()}
    return out


def _task_v1_to_v2(block: Any) -> Any:
    if not isinstance(block, dict):
        return block  # not a task block: validation names it
    out = dict(block)
    if out.get("scored") is False:
        out["score"] = None
        if "ci95" in out:
            out["ci95"] = None
    if isinstance(out.get("metrics"), dict):
        out["metrics"] = {
            key: float(value)
            for key, value in out["metrics"].items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }
    return out


MIGRATIONS: dict[str, dict[int, Migration]] = {"results": {1: results_v1_to_v2}}
"""Per file kind: the migration from each older version to the next."""


def migrate(kind: str, document: dict[str, Any], *, current: int) -> dict[str, Any]:
    """``document`` (a parsed ``kind`` file) brought to version ``current`` by its migrations in turn; a
    document already at ``current`` is returned as it is."""
    version = document.get("schema_version", 1)
    steps = MIGRATIONS.get(kind, {})
    while version != current and version in steps:
        document = steps[version](document)
        version = document["schema_version"]
    return document
