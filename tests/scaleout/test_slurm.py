"""examples/slurm on a real Slurm: the job array runs one shard per task, the merge job waits for it
(afterok) and writes what a single run writes; ray.sbatch starts a Ray cluster in a one-node allocation,
runs the driver on it and stops it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import omnieval
from omnieval.testing.fake_openai import FakeOpenAI
from tests.scaleout.slurm import SlurmCluster, free_ports

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "slurm"


def _records(out: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    return {
        (r["task"], r["sample_id"]): {k: v for k, v in r.items() if k not in ("latency_s", "cached")}
        for r in rows
    }


@pytest.fixture(scope="module")
def single(server: FakeOpenAI, quiz: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A single local run of the quiz: what every Slurm-run folder must equal."""
    out = tmp_path_factory.mktemp("single") / "run"
    omnieval.evaluate(model="openai/fake", tasks=f"jsonl:{quiz}", base_url=server.url, output=out, quiet=True)
    return out


def _job_env(slurm: SlurmCluster, server: FakeOpenAI, quiz: Path, runs: Path, **extra: str) -> dict[str, str]:
    """What the job scripts read: the task, the fake server, this interpreter's omnieval."""
    return slurm.env(
        TASKS=f"jsonl:{quiz}",
        MODEL="openai/fake",
        BASE_URL=server.url,
        RUNS=str(runs),
        OMNIEVAL=f"{sys.executable} -m omnieval",
        PYTHONPATH=os.pathsep.join(sys.path[1:]),
        **extra,
    )


def _logs(folder: Path) -> list[str]:
    return [p.read_text() for p in folder.glob("*.log")]


def test_the_job_array_and_its_dependent_merge_equal_a_single_run(
    slurm: SlurmCluster, server: FakeOpenAI, quiz: Path, single: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    env = _job_env(slurm, server, quiz, runs)
    array, merge = slurm.run("bash", str(EXAMPLES / "submit.sh"), "3", env=env, cwd=tmp_path).split()
    states = slurm.wait(array, merge, timeout=90)
    assert states == {f"{array}_{i}": "COMPLETED" for i in range(3)} | {merge: "COMPLETED"}, (
        states,
        _logs(tmp_path),
    )
    shards = [
        json.loads((runs / f"shard-{i}" / "manifest.json").read_text())["config"]["shard"] for i in range(3)
    ]
    assert shards == [{"index": i, "count": 3} for i in range(3)]
    assert _records(runs / "merged") == _records(single)
    assert omnieval.load_results(runs / "merged").results.tasks == omnieval.load_results(single).results.tasks


@pytest.fixture
def ray_temp() -> Iterator[Path]:
    """The job's node-local Ray folder: short, as Ray's socket paths must fit in 107 bytes."""
    pytest.importorskip("ray")
    path = Path(tempfile.mkdtemp(prefix="rs"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


QUICK_RAY = "--disable-usage-stats --include-log-monitor=false"


def _processes_under(folder: Path, *, within_s: float = 10) -> list[str]:
    """Command lines of live processes naming ``folder`` (Ray's raylets, GCS and workers name their temp
    dir) once none is left or ``within_s`` seconds passed (a killed process takes a moment to go)."""
    end = time.monotonic() + within_s
    while True:
        proc = subprocess.run(["pgrep", "-af", str(folder)], capture_output=True, text=True, check=False)
        if not proc.stdout.strip() or time.monotonic() > end:
            return proc.stdout.splitlines()
        time.sleep(0.2)


def test_ray_sbatch_runs_a_ray_cluster_in_one_node_s_allocation_and_stops_it(
    slurm: SlurmCluster, server: FakeOpenAI, quiz: Path, single: Path, tmp_path: Path, ray_temp: Path
) -> None:
    """The head and one worker (srun, its own temp dir) on the one node; the driver runs the quiz on them
    through ``--executor ray`` and writes a single run's records; no Ray process outlives the job."""
    runs = tmp_path / "runs"
    gcs, client = free_ports(2)
    env = _job_env(
        slurm,
        server,
        quiz,
        runs,
        RAY=str(Path(sys.executable).with_name("ray")),
        RAY_PORT=str(gcs),
        RAY_TMPDIR=str(ray_temp),
        # fewer processes to start: no dashboard, no log monitor (omnieval joins with log_to_driver=False:
        # it would forward nothing); the Ray Client server on a free port
        RAY_HEAD_ARGS=f"{QUICK_RAY} --include-dashboard=false --ray-client-server-port={client}",
        RAY_WORKER_ARGS=QUICK_RAY,
        RAY_AUTH_MODE="disabled",  # a throwaway cluster: never the machine's ~/.ray/auth_token
        OMNIEVAL_ARGS="--quiet",
    )
    job = slurm.run("sbatch", "--parsable", "--nodes=1", str(EXAMPLES / "ray.sbatch"), env=env, cwd=tmp_path)
    job = job.strip().split(";")[0]
    states = slurm.wait(job, timeout=120)
    assert states == {job: "COMPLETED"}, (states, _logs(tmp_path))
    log = "".join(_logs(tmp_path))
    assert log.count("Ray runtime started") == 2, "the head and one worker started"
    manifest = json.loads((runs / "ray" / "manifest.json").read_text())
    assert manifest["executor"]["kind"] == "ray" and manifest["executor"]["address"].endswith(f":{gcs}")
    assert (runs / "ray" / "ray.log").exists(), "Ray's own logs are in the run folder"
    assert _records(runs / "ray") == _records(single)
    assert not _processes_under(ray_temp), "the job stopped its Ray cluster"
