"""Running a generated Hub copy through the front door with replayed answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omnieval.api import evaluate
from omnieval.testing.hub_copies import hub_row_ids


def replay(tmp_path: Path, task: str, answers: dict[str, str]) -> str:
    """A replay file answering each sample id; returns the ``replay/FILE`` model spec."""
    file = tmp_path / f"{task}-answers.jsonl"
    file.write_text(
        "".join(json.dumps({"task": task, "sample_id": k, "response": v}) + "\n" for k, v in answers.items()),
        encoding="utf-8",
    )
    return f"replay/{file}"


def run_copy(
    tmp_path: Path, bench: str, root: Path, answer: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Answer every sample of the copy with ``answer(sample_id)``; the task's results block and records."""
    ids = hub_row_ids(bench, root)
    model = replay(tmp_path, bench, {i: answer(i) for i in ids})
    out = tmp_path / f"out-{bench}"
    evaluate(model=model, tasks=[f"{bench}:{root}"], output=out, quiet=True)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    return results["tasks"][bench], records
