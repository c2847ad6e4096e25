"""Whether two run folders hold the same run: the settings that change what a finished sample means.

One comparison for every place that joins or continues runs (``omnieval merge`` here; resuming a folder
compares the same settings).
"""

from __future__ import annotations

from omnieval.runner.resume import SAME_MEANING, SAME_SELECTION, run_setting_differences
from omnieval.types.files import ManifestFile

__all__ = ["MEANING", "SELECTION", "different_settings"]

MEANING = SAME_MEANING
"""Settings that change what a finished sample means: two runs that differ in one must never mix."""
SELECTION = ("tasks", *SAME_SELECTION)
"""Settings that choose the samples (``--shard`` aside): shards of one run share them."""


def different_settings(
    first: ManifestFile, other: ManifestFile, *, keys: tuple[str, ...] = MEANING + SELECTION
) -> list[str]:
    """What differs between two runs' manifests, each as ``"NAME (A → B)"``: the ``keys`` of their
    configurations and the judge's model (the one comparison resume uses), and each shared task's
    definition (its hash)."""
    changed = run_setting_differences(first.config, other.config, keys=keys)
    changed += [
        f"task {name} (definition changed)"
        for name, task in first.tasks.items()
        if name in other.tasks and other.tasks[name].hash != task.hash
    ]
    return changed
