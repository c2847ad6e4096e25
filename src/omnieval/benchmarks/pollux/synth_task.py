"""``--tasks pollux_synth:PROMPTS.jsonl``: the instruction-generation prompts (``omnieval pollux
synth-prompts``) as a generative task, so any ``--model`` (the paper used DeepSeek-V3, GPT-4o and
o3-mini) writes synthetic instructions; ``omnieval pollux synth-items RUN_DIR`` extracts them."""

from __future__ import annotations

from pathlib import Path

from omnieval.errors import SourceError
from omnieval.sources.importers import register_importer
from omnieval.sources.readers import read_rows
from omnieval.sources.task import Task
from omnieval.types import MetricRef, PluginRef, PromptSpec, Sample, TaskSpec

__all__ = ["import_synth_task"]


@register_importer("pollux_synth")
def import_synth_task(path: str) -> list[Task]:
    file = Path(path).expanduser().resolve()
    samples = []
    for index, row in read_rows("jsonl", path=file):
        if not row.get("prompt") or not row.get("task_type") or not row.get("complexity"):
            raise SourceError(
                "a prompt row needs prompt, task_type and complexity", path=str(file), sample_id=str(index)
            )
        meta = {k: row.get(k) for k in ("task_type", "task_subtype", "complexity")}
        samples.append(Sample(id=str(index), input=str(row["prompt"]), metadata={"pollux_synth": meta}))
    spec = TaskSpec(
        name="pollux_synth",
        description="POLLUX synthetic instruction generation (App. M.1)",
        prompt=PromptSpec(template="{{ input }}"),
        parser=PluginRef(name="strip"),
        metrics=(MetricRef(name="exact_match"),),
        metadata={"suite": "pollux"},
    )
    return [
        Task(spec=spec, iter_samples=lambda: iter(samples), size=len(samples), origin=f"pollux_synth:{file}")
    ]
