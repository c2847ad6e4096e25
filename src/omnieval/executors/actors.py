"""The progress board actor (the per-endpoint concurrency gate is in :mod:`omnieval.executors.gate`).

Plain classes here; :mod:`omnieval.executors.ray_executor` turns them into Ray actors, so this module
imports without Ray.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ProgressBoard"]


class ProgressBoard:
    """Latest counts per shard, pushed by workers and read by the driver's progress display."""

    def __init__(self) -> None:
        self._shards: dict[str, dict[str, Any]] = {}

    def report(self, key: str, counts: dict[str, Any]) -> None:
        self._shards[key] = counts

    def snapshot(self) -> dict[str, dict[str, Any]]:
        return dict(self._shards)
