"""Whether two run folders hold the same run: the settings that change what a finished sample means.

One comparison for every place that joins or continues runs (``omnieval merge`` here; resuming a folder
compares the same settings).
"""

from __future__ import annotations

from typing import Any

from omnieval.types.files import ManifestFile

__all__ = ["MEANING", "SELECTION", "different_settings"]

MEANING = (
    "model",
    "generation",
    "seed",
    "blind",
    "strict_metrics",
    "repeats",
    "reasoning_effort",
    "reasoning_budget",
)
"""Settings that change what a finished sample means: two runs that differ in one must never mix."""
SELECTION = ("tasks", "limit", "sample_ids")
"""Settings that choose the samples (``--shard`` aside): shards of one run share them."""


def different_settings(
    first: ManifestFile, other: ManifestFile, *, keys: tuple[str, ...] = MEANING + SELECTION
) -> list[str]:
    """What differs between two runs' manifests, each as ``"NAME (A ≠ B)"``: the ``keys`` of their
    configurations, the judge's model and each shared task's definition (its hash)."""
    a, b = first.config, other.config
    changed = [
        f"{key} ({_shown(a.get(key))} ≠ {_shown(b.get(key))})" for key in keys if a.get(key) != b.get(key)
    ]
    judge_a, judge_b = _judge(a), _judge(b)
    if judge_a != judge_b:
        changed.append(f"judge ({judge_a or 'none'} ≠ {judge_b or 'none'})")
    changed += [
        f"task {name} (definition changed)"
        for name, task in first.tasks.items()
        if name in other.tasks and other.tasks[name].hash != task.hash
    ]
    return changed


def _judge(config: dict[str, Any]) -> str | None:
    return (config.get("judge") or {}).get("model")


def _shown(value: Any) -> str:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    return "unset" if value is None else str(value)
