"""``agent_demo``: generated, seeded multimodal agent tasks, Russian first (every other sample English).

Importing registers the generators ``agent_demo.chart_zoom``, ``agent_demo.forms_table``,
``agent_demo.count_crops``, ``agent_demo.timetable_plan`` and the task folder (group ``agent_demo``).
Each task runs in the in-process ``workbench`` tool environment and is graded on its final state.
"""

from pathlib import Path

from omnieval.benchmarks.agent_demo import generate as generate
from omnieval.sources.catalog import register_task_dir

register_task_dir(Path(__file__).parent / "tasks")

__all__ = ["generate"]
