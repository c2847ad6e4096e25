"""``--tasks jsonl:PATH`` (and ``csv:``, ``tsv:``, ``parquet:``): the minimal task of one table (``id``,
``question``, ``answer``, optional ``choices``).

Without ``choices`` it is a generative exact-match task; with ``choices`` (a list; in a CSV or TSV cell a
JSON list) it is multiple choice with lettered options and the gold letter is the position of ``answer`` in
``choices``. Each format is one entry of :data:`TABLE_FORMATS`, read as YAML ``source: {type: FORMAT}``.
"""

from __future__ import annotations

from pathlib import Path

from omnieval.errors import SourceError
from omnieval.sources.importers import register_importer
from omnieval.sources.loader import task_from_spec
from omnieval.sources.readers import read_rows
from omnieval.sources.task import Task
from omnieval.types import MetricRef, PluginRef, PromptSpec, SourceSpec, TaskSpec

__all__ = ["TABLE_FORMATS", "jsonl_task_spec", "table_task_spec"]

TABLE_FORMATS = ("jsonl", "csv", "tsv", "parquet")
"""The ``FORMAT:PATH`` prefixes of one-table tasks (each also the file extension it is read by)."""

MC_TEMPLATE = (
    "{{ input }}\n{{ options_block }}\n\n"
    "Ответьте только буквой правильного варианта. / Answer with the letter of the correct option only."
)


def _first_row(path: Path, fmt: str) -> dict[str, object]:
    for _, row in read_rows(fmt, path=path):
        return row
    raise SourceError("the file has no samples", path=str(path))


def jsonl_task_spec(path: Path) -> TaskSpec:
    """The spec ``jsonl:PATH`` implies, decided by whether the rows carry ``choices``."""
    return table_task_spec(path, "jsonl")


def table_task_spec(path: Path, fmt: str) -> TaskSpec:
    """The spec ``FORMAT:PATH`` implies, decided by whether the rows carry ``choices``."""
    multiple_choice = _first_row(path, fmt).get("choices") not in (None, "")
    prompt = PromptSpec(template=MC_TEMPLATE) if multiple_choice else PromptSpec(template="{{ input }}")
    return TaskSpec(
        name=path.stem,
        description=f"{fmt.upper()} task from {path.name}",
        source=SourceSpec(type=fmt, path=str(path)),  # type: ignore[arg-type]
        prompt=prompt,
        parser=PluginRef(name="mc_letter") if multiple_choice else PluginRef(name="strip"),
        metrics=(MetricRef(name="exact_match"),),
    )


def _table_importer(fmt: str) -> None:
    def load(path: str) -> list[Task]:
        file = Path(path).resolve()
        if not file.exists():
            raise SourceError("file not found", path=str(file))
        return [task_from_spec(table_task_spec(file, fmt), base_dir=file.parent, origin=f"{fmt}:{file}")]

    load.__name__ = f"load_{fmt}_task"
    load.__doc__ = f"``--tasks {fmt}:PATH``: the one-table task of a {fmt.upper()} file."
    register_importer(fmt)(load)


for _fmt in TABLE_FORMATS:
    _table_importer(_fmt)
