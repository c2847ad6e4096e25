"""examples/kubernetes: the Indexed Job and the merge Job parse, share one volume, and build from their
environment the commands meant (run by /bin/sh, as the pods run them, against a stand-in omnieval)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kubernetes"


def _documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((EXAMPLES / name).read_text(encoding="utf-8")) if d]


def _container(job: dict[str, Any]) -> dict[str, Any]:
    (container,) = job["spec"]["template"]["spec"]["containers"]
    return container


def _plain_env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container["env"] if "value" in e}


def _argv(container: dict[str, Any], env: dict[str, str], tmp_path: Path) -> list[str]:
    """The arguments the container's command passes to omnieval, with ``env`` set."""
    stand_in = tmp_path / "bin" / "omnieval"
    stand_in.parent.mkdir(exist_ok=True)
    stand_in.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$ARGV_FILE"\n', encoding="utf-8")
    stand_in.chmod(0o755)
    argv_file = tmp_path / "argv"
    path = f"{stand_in.parent}{os.pathsep}{os.environ['PATH']}"
    full = {"PATH": path, "ARGV_FILE": str(argv_file), **env}
    subprocess.run(container["command"], env=full, check=True, timeout=30)
    return argv_file.read_text(encoding="utf-8").splitlines()


def test_the_indexed_job_runs_shard_i_of_n_into_its_own_folder(tmp_path: Path) -> None:
    (job,) = _documents("shards-job.yaml")
    spec = job["spec"]
    assert job["kind"] == "Job" and spec["completionMode"] == "Indexed"
    container = _container(job)
    env = _plain_env(container)
    assert int(env["SHARDS"]) == spec["completions"] == spec["parallelism"]
    assert container["resources"]["requests"] and container["resources"]["limits"]
    argv = _argv(container, env | {"JOB_COMPLETION_INDEX": "2"}, tmp_path)
    assert argv == [
        "run",
        "--tasks",
        env["TASKS"],
        "--model",
        env["MODEL"],
        "--base-url",
        env["BASE_URL"],
        "--shard",
        f"2/{spec['completions']}",
        "--output",
        f"/runs/{env['RUN']}/shard-2",
        "--quiet",
    ]


def test_the_merge_job_joins_every_shard_folder_on_the_same_volume(tmp_path: Path) -> None:
    (shards,) = _documents("shards-job.yaml")
    (merge,) = _documents("merge-job.yaml")
    claims = {
        v["persistentVolumeClaim"]["claimName"]
        for job in (shards, merge)
        for v in job["spec"]["template"]["spec"]["volumes"]
    }
    pvc = next(d for d in _documents("storage.yaml") if d["kind"] == "PersistentVolumeClaim")
    assert claims == {pvc["metadata"]["name"]}
    container = _container(merge)
    env = _plain_env(container)
    assert env["RUNS"] == f"/runs/{_plain_env(_container(shards))['RUN']}"
    count = shards["spec"]["completions"]
    runs = tmp_path / "runs"  # the volume, here
    for i in range(count):
        (runs / f"shard-{i}").mkdir(parents=True)
    argv = _argv(container, env | {"RUNS": str(runs)}, tmp_path)
    assert argv == [
        "merge",
        *(str(runs / f"shard-{i}") for i in range(count)),
        "--output",
        str(runs / "merged"),
    ]


def test_every_example_manifest_parses() -> None:
    kinds = [
        d["kind"] for name in sorted(os.listdir(EXAMPLES)) if name.endswith(".yaml") for d in _documents(name)
    ]
    assert sorted(kinds) == ["Job", "Job", "PersistentVolumeClaim", "Pod"]
