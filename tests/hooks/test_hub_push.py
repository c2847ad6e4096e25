"""``omnieval push``: the .eval_results files reach a (fake, local) Hub; bad token or repo → one clear
line."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("huggingface_hub")

from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from tests.hooks.fake_hub import fake_hub


@pytest.fixture
def run_dir(tmp_path: Path, qa_task: Path, replay_answers: Path) -> Path:
    out = tmp_path / "run"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{qa_task}",), model=f"replay/{replay_answers}", output=out, quiet=True)
    )
    return out


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _push(
    run: Path, repo: str, endpoint: str, token: str | None, home: Path
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env |= {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "HF_ENDPOINT": endpoint, "HF_HOME": str(home)}
    if token:
        env["HF_TOKEN"] = token
    args = [sys.executable, "-m", "omnieval", "push", str(run), "--repo", repo]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)


def test_push_uploads_the_eval_results_and_leaves_the_run_untouched(run_dir: Path, tmp_path: Path) -> None:
    before = _digest(run_dir)
    with fake_hub({"org/model"}, token="hf_good") as (endpoint, hub):
        proc = _push(run_dir, "org/model", endpoint, "hf_good", tmp_path / "home")
        assert proc.returncode == 0, proc.stderr
        (commit,) = hub.commits
    assert commit["repo"] == "org/model" and commit["revision"] == "main"
    assert list(commit["files"]) == [".eval_results/qa.yaml"]
    (entry,) = yaml.safe_load(commit["files"][".eval_results/qa.yaml"])
    assert entry["dataset"] == {"id": "omnieval/qa", "task_id": "qa"} and entry["value"] == pytest.approx(0.7)
    assert _digest(run_dir) == before


@pytest.mark.parametrize(
    ("repo", "token", "message"),
    [("org/model", None, "needs a Hugging Face token"), ("org/nope", "hf_good", "'org/nope' not found")],
)
def test_push_without_token_or_to_an_unknown_repo_is_one_line(
    run_dir, tmp_path, repo, token, message
) -> None:
    before = _digest(run_dir)
    with fake_hub({"org/model"}, token="hf_good") as (endpoint, hub):
        proc = _push(run_dir, repo, endpoint, token, tmp_path / "home")
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not hub.commits
    assert _digest(run_dir) == before
