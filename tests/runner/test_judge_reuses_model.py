"""A judge that is the model under test itself is loaded once and judges with the loaded model; the verdicts
are those of a judge loaded apart. Any difference in how it would load (here the device) keeps them apart."""

from __future__ import annotations

import os
from pathlib import Path

from omnieval.backends import BackendOptions
from omnieval.runner import JudgeConfig, RunConfig
from omnieval.runs.evaluation import evaluate_config
from tests.executors.helpers import results
from tests.executors.judge_helpers import constructions, judged_record_set, judged_task, states


def _run(tmp_path: Path, name: str, spec: str, *, judge_device: str | None) -> Path:
    task = str(judged_task(tmp_path, 12))
    judge = JudgeConfig(model=spec, backend=BackendOptions(batch_size=4, device=judge_device), retries=1)
    out = tmp_path / name
    evaluate_config(
        RunConfig(
            tasks=(task,),
            model=spec,
            output=out,
            quiet=True,
            backend=BackendOptions(batch_size=2),
            judge=judge,
        )
    )
    return out


def test_the_model_judging_itself_is_loaded_once_with_the_same_verdicts(tmp_path: Path) -> None:
    loads = tmp_path / "constructions.txt"
    spec = f"counting-judge/{loads}"
    shared = _run(tmp_path, "shared", spec, judge_device=None)
    once = len(constructions(loads))
    apart = _run(tmp_path, "apart", spec, judge_device="cpu")  # another device: a second load
    assert once == 1, "model and judge: one load"
    assert len(constructions(loads)) == once + 2 and set(constructions(loads)) == {os.getpid()}
    assert judged_record_set(shared) == judged_record_set(apart)
    assert results(shared) == results(apart)
    assert states(shared)["judge_failed"] > 0 and states(shared)["ok"] > 0, "both verdicts and judge failures"
