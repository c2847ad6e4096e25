"""``omnieval export hf-eval-results``: the Hub's .eval_results YAML, read back with huggingface_hub's
parser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("huggingface_hub")

from huggingface_hub import parse_eval_result_entries
from huggingface_hub.repocard_data import model_index_to_eval_results

from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config


def _export(run: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    args = ["export", "hf-eval-results", str(run), "--model-id", "org/model", "--output", str(out)]
    return subprocess.run(
        [sys.executable, "-m", "omnieval", *args], capture_output=True, text=True, timeout=120, env=env
    )


def test_export_names_every_task_with_its_score(tmp_path: Path, qa_task: Path, replay_answers: Path) -> None:
    second = tmp_path / "qb.jsonl"
    second.write_text(qa_task.read_text(), encoding="utf-8")
    run = tmp_path / "run"
    evaluate_config(
        RunConfig(
            tasks=(f"jsonl:{qa_task}", f"jsonl:{second}"),
            model=f"replay/{replay_answers}",
            output=run,
            quiet=True,
        )
    )
    results = json.loads((run / "results.json").read_text())
    assert results["tasks"]["qa"]["score"] == pytest.approx(0.7)  # replay answers 7 of 10 right
    assert results["tasks"]["qb"]["score"] == 0.0  # answers are keyed by task "qa": every qb sample is error

    out = tmp_path / "out"
    proc = _export(run, out)
    assert proc.returncode == 0, proc.stderr
    files = sorted((out / ".eval_results").glob("*.yaml"))
    assert [f.name for f in files] == ["qa.yaml", "qb.yaml"]
    entries = [e for f in files for e in parse_eval_result_entries(yaml.safe_load(f.read_text()))]
    assert {e.task_id: e.value for e in entries} == {"qa": pytest.approx(0.7), "qb": 0.0}
    assert {e.dataset_id for e in entries} == {"omnieval/qa", "omnieval/qb"}
    assert all("evaluation_framework: omnieval" in (e.notes or "") for e in entries)
    name, card = model_index_to_eval_results(
        yaml.safe_load((out / "model-index.yaml").read_text())["model-index"]
    )
    assert name == "org/model" and {r.dataset_name: r.metric_value for r in card} == {"qa": 0.7, "qb": 0.0}


def test_export_of_a_folder_without_results_is_one_line(tmp_path: Path) -> None:
    proc = _export(tmp_path, tmp_path / "o")
    assert proc.returncode != 0 and "results.json does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr
