"""Source stage: task files and datasets → lazily streamed samples."""

from omnieval.sources import jsonl_task as _jsonl_task  # noqa: F401  (registers the jsonl: importer)
from omnieval.sources.catalog import register_task_dir, task_dirs
from omnieval.sources.ids import check_unique_ids
from omnieval.sources.importers import importers, register_importer
from omnieval.sources.loader import cache_root, deep_merge, load_task_file, spec_from_dict, task_from_spec
from omnieval.sources.plugins import generators, register_generator, register_transform, transforms
from omnieval.sources.task import Task

__all__ = [
    "Task",
    "cache_root",
    "check_unique_ids",
    "deep_merge",
    "generators",
    "importers",
    "load_task_file",
    "register_generator",
    "register_importer",
    "register_task_dir",
    "register_transform",
    "spec_from_dict",
    "task_dirs",
    "task_from_spec",
    "transforms",
]
