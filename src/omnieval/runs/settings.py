"""Whether two run folders hold the same run: the settings that change what a finished sample means.

One comparison for every place that joins or continues runs (``omnieval merge`` here; resuming a folder
compares the same settings).
"""

from __future__ import annotations

from omnieval.runner.resume import SAME_MEANING, SAME_SELECTION, run_setting_differences
from omnieval.types.files import ManifestFile

__all__ = ["different_settings"]


def different_settings(
    first: ManifestFile,
    other: ManifestFile,
    *,
    keys: tuple[str, ...] = (*SAME_MEANING, "tasks", *SAME_SELECTION),
) -> list[str]:
    """What differs between two runs' manifests, each as ``"NAME (A → B)"``: the ``keys`` of their
    configurations and the judge's model (the one comparison resume uses), and each shared task's
    definition (its hash). By default the keys are the settings that change what a finished sample means
    (two runs that differ in one must never mix) and those that choose the samples, the task list with
    them (shards of one run share them all, ``--shard`` aside)."""
    changed = run_setting_differences(first.config, other.config, keys=keys)
    changed += [
        f"task {name} (definition changed)"
        for name, task in first.tasks.items()
        if name in other.tasks and other.tasks[name].hash != task.hash
    ]
    return changed
