"""``--tasks jsonl:PATH``: the minimal JSONL task (``id``, ``question``, ``answer``, optional ``choices``).

Without ``choices`` it is a generative exact-match task; with ``choices`` it is multiple choice with
lettered options and the gold letter is the position of ``answer`` in ``choices``.
"""

from __future__ import annotations

from pathlib import Path

from omnieval.errors import SourceError
from omnieval.sources.importers import register_importer
from omnieval.sources.loader import task_from_spec
from omnieval.sources.readers import read_rows
from omnieval.sources.task import Task
from omnieval.types import MetricRef, PluginRef, PromptSpec, SourceSpec, TaskSpec

__all__ = ["jsonl_task_spec", "load_jsonl_task"]

MC_TEMPLATE = (
    "{{ input }}\n{{ options_block }}\n\n"
    "Ответьте только буквой правильного варианта. / Answer with the letter of the correct option only."
)


def _first_row(path: Path) -> dict[str, object]:
    for _, row in read_rows("jsonl", path=path):
        return row
    raise SourceError("the file has no samples", path=str(path))


def jsonl_task_spec(path: Path) -> TaskSpec:
    """The spec ``jsonl:PATH`` implies, decided by whether the rows carry ``choices``."""
    multiple_choice = "choices" in _first_row(path)
    prompt = PromptSpec(template=MC_TEMPLATE) if multiple_choice else PromptSpec(template="{{ input }}")
    return TaskSpec(
        name=path.stem,
        description=f"JSONL task from {path.name}",
        source=SourceSpec(type="jsonl", path=str(path)),
        prompt=prompt,
        parser=PluginRef(name="mc_letter") if multiple_choice else PluginRef(name="strip"),
        metrics=(MetricRef(name="exact_match"),),
    )


@register_importer("jsonl")
def load_jsonl_task(path: str) -> list[Task]:
    file = Path(path).resolve()
    if not file.exists():
        raise SourceError("file not found", path=str(file))
    return [task_from_spec(jsonl_task_spec(file), base_dir=file.parent, origin=f"jsonl:{file}")]
