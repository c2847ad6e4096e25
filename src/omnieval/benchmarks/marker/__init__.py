"""MARKER (Russian educational VLM benchmark): CircularEval, strict/lenient MC scoring, a demo task.

Importing registers the ``circular`` transform, the ``marker_demo`` data generator, the task
directory holding ``marker_demo.yaml``, the ``omnieval marker simplicity`` command and the
dataset-builder commands ``distractors``, ``necessity`` and ``model-set``.
"""

from pathlib import Path

from omnieval.benchmarks.marker import builder_cli as builder_cli
from omnieval.benchmarks.marker import cli as cli
from omnieval.benchmarks.marker import demo as demo
from omnieval.benchmarks.marker import judge as judge  # the open-ended physics rubric judge
from omnieval.benchmarks.marker import validation as validation  # the distractor check judge
from omnieval.sources import circular as circular
from omnieval.sources.catalog import register_task_dir

register_task_dir(Path(__file__).parent / "tasks")

__all__ = ["builder_cli", "circular", "cli", "demo"]
