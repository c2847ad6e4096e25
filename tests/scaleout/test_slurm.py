"""examples/slurm on a real Slurm: the job array runs one shard per task, the merge job waits for it
(afterok) and writes what a single run writes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import omnieval
from omnieval.testing.fake_openai import FakeOpenAI
from tests.scaleout.slurm import SlurmCluster

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "slurm"


def _records(out: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    return {
        (r["task"], r["sample_id"]): {k: v for k, v in r.items() if k not in ("latency_s", "cached")}
        for r in rows
    }


def test_the_job_array_and_its_dependent_merge_equal_a_single_run(
    slurm: SlurmCluster, server: FakeOpenAI, quiz: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    env = slurm.env(
        TASKS=f"jsonl:{quiz}",
        MODEL="openai/fake",
        BASE_URL=server.url,
        RUNS=str(runs),
        OMNIEVAL=f"{sys.executable} -m omnieval",
        PYTHONPATH=os.pathsep.join(sys.path[1:]),
    )
    array, merge = slurm.run("bash", str(EXAMPLES / "submit.sh"), "3", env=env, cwd=tmp_path).split()
    states = slurm.wait(array, merge, timeout=90)
    assert states == {f"{array}_{i}": "COMPLETED" for i in range(3)} | {merge: "COMPLETED"}, (
        states,
        [p.read_text() for p in tmp_path.glob("*.log")],
    )
    shards = [
        json.loads((runs / f"shard-{i}" / "manifest.json").read_text())["config"]["shard"] for i in range(3)
    ]
    assert shards == [{"index": i, "count": 3} for i in range(3)]

    single = omnieval.evaluate(
        model="openai/fake",
        tasks=f"jsonl:{quiz}",
        base_url=server.url,
        output=tmp_path / "single",
        quiet=True,
    )
    assert _records(runs / "merged") == _records(tmp_path / "single")
    assert omnieval.load_results(runs / "merged").results.tasks == single.results.tasks
