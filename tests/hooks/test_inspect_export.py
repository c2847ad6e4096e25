"""``omnieval export inspect``: the .eval log is read back by inspect_ai's own reader (extra ``inspect``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "inspect_ai", reason="inspect_ai is the optional extra 'inspect' (pip install 'omnieval[inspect]')"
)

from inspect_ai.log import read_eval_log

from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config


def test_inspect_log_reads_back_with_scores_and_samples(
    tmp_path: Path, qa_task: Path, replay_answers: Path
) -> None:
    run = tmp_path / "run"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{qa_task}",), model=f"replay/{replay_answers}", output=run, quiet=True)
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-m", "omnieval", "export", "inspect", str(run)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    log = read_eval_log(str(run / "inspect" / "qa.eval"))
    assert log.status == "success" and log.eval.task == "qa" and log.eval.model.startswith("replay/")
    (score,) = log.results.scores
    assert score.metrics["mean"].value == pytest.approx(0.7)
    samples = {s.id: s for s in log.samples}
    assert len(samples) == 10
    assert samples["3"].input == "3+3=?" and samples["3"].target == ["6"]
    assert samples["3"].output.completion == "6" and samples["3"].scores["omnieval"].value == 1.0
    assert samples["8"].output.completion == "99" and samples["8"].scores["omnieval"].value == 0.0


def test_repeats_are_exported_as_inspect_epochs(tmp_path: Path, qa_task: Path) -> None:
    from omnieval.interchange.inspect_log import write_inspect_logs

    run = tmp_path / "run"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{qa_task}",), model="baseline/random", output=run, repeats=3, quiet=True)
    )
    (path,) = write_inspect_logs(run, output=tmp_path / "inspect")
    log = read_eval_log(str(path))
    assert sorted((s.id, s.epoch) for s in log.samples) == sorted(
        (str(i), e) for i in range(10) for e in (1, 2, 3)
    )
    assert log.eval.config.epochs == 3 and log.eval.dataset.samples == 10
