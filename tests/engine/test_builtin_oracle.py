"""The built-in sanity check: ``baseline/oracle`` must score 1.0 on every built-in task."""

from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.metrics import metrics
from omnieval.runner import RunConfig, catalog
from omnieval.runs.evaluation import evaluate_config


def _builtin() -> list[str]:
    return sorted(catalog())


def test_there_are_builtin_tasks() -> None:
    names = _builtin()
    assert {"demo_text", "demo_image", "demo_audio", "demo_video"} <= set(names), names


@pytest.mark.parametrize("name", _builtin())
def test_oracle_scores_one(name: str, tmp_path: Path) -> None:
    cfg = RunConfig(tasks=(name,), model="baseline/oracle", output=tmp_path / "run", quiet=True, limit=12)
    _, results = evaluate_config(cfg)
    block = results.tasks[name]
    assert block.n > 0
    assert block.states["ok"] == block.n, block.states
    # every built-in task has gold answers: a task that scored nothing would be a broken check
    assert block.n_scored == block.n and block.prediction_only == 0, block
    assert block.score == pytest.approx(1.0), block.metrics
    # every metric at its best: 1, or 0 under an error rate (CER, WER)
    best = {
        k: 0.0 if k in ("cer", "spoken_wer", "wer") and not metrics.get(k).higher_is_better else 1.0
        for k in block.metrics
    }
    assert all(v == pytest.approx(best[k]) for k, v in block.metrics.items()), block.metrics
