from __future__ import annotations

from typing import Any

import pytest

from omnieval.aggregate.schemes import schemes
from omnieval.benchmarks.mera.scheme import mera_scheme, score_model
from omnieval.errors import ConfigError, StoreError


def test_scheme_is_registered() -> None:
    assert schemes.get("mera") is mera_scheme


def test_hand_worked_partial_submission() -> None:
    # 2 image tasks (0.5, 0.7) and 1 audio task (0.9), no video:
    # image total = 1.2/11, audio total = 0.9/4, C = (2/11 + 1/4)/3
    # A(tasks) = 2.1/3 = 0.7; A(eq.2) = (1.2/11 + 0.9/4) / (2/11 + 1/4)
    scores = {"weird": 0.5, "ruclevr": 0.7, "aquaria": 0.9}
    coverage = (2 / 11 + 1 / 4) / 3
    t = score_model(scores, weighting="tasks")
    assert t["modalities"]["image"]["total"] == pytest.approx(1.2 / 11)
    assert t["modalities"]["audio"]["attempted"] == pytest.approx(0.9)
    assert t["coverage"] == pytest.approx(coverage)
    assert t["attempted"] == pytest.approx(0.7) and t["total"] == pytest.approx(0.7 * coverage)
    m = score_model(scores, weighting="modalities")
    a2 = (1.2 / 11 + 0.9 / 4) / (2 / 11 + 1 / 4)
    assert m["attempted"] == pytest.approx(a2)
    # equation (2) times coverage is the mean of the modality totals (missing tasks count 0)
    assert m["total"] == pytest.approx((1.2 / 11 + 0.9 / 4 + 0) / 3)


def _block(score: float | None, **extra: Any) -> dict[str, Any]:
    """One task's block of a results.json (the keys its model requires)."""
    return {"score": score, "n": 1, "states": {"ok": 1}, **extra}


def test_rows_have_the_fixed_keys_and_are_sorted_by_total() -> None:
    results = [
        {"model": "weak", "run_dir": "a", "tasks": {"weird": _block(0.1)}},
        {"model": "strong", "run_dir": "b", "tasks": {"ruHHH-Video": _block(0.9, metrics={"group_em": 0.9})}},
    ]
    board = mera_scheme(results, weighting="modalities")
    assert [r["model"] for r in board["rows"]] == ["strong", "weak"]
    assert set(board["rows"][0]) == {"model", "total", "attempted", "coverage", "image", "audio", "video"}
    assert board["rows"][0]["video"] == pytest.approx(0.3)
    assert [r["model"] for r in board["boards"]["video"]["rows"]] == ["strong"]
    assert board["boards"]["audio"]["human_baseline"] == pytest.approx(0.895)
    assert board["boards"]["multi"]["human_baseline"]["coverage"] == 1.0


def test_unscored_private_tasks_are_not_attempted() -> None:
    board = mera_scheme([{"model": "m", "tasks": {"weird": _block(1.0), "realvqa": _block(None)}}])
    assert board["rows"][0]["image"] == pytest.approx(1 / 11)
    assert board["details"][0]["unscored"] == ["realvqa"]


def test_bad_results_name_the_run_and_task() -> None:
    with pytest.raises(ConfigError, match=r"run7.*'mmlu'"):
        mera_scheme([{"model": "m", "run_dir": "run7", "tasks": {"mmlu": _block(0.5)}}])
    with pytest.raises(ConfigError, match=r"run8.*'weird'.*score"):
        mera_scheme([{"model": "m", "run_dir": "run8", "tasks": {"weird": _block(1.5)}}])
    with pytest.raises(ConfigError, match="weighting"):
        mera_scheme([], weighting="samples")


def test_a_mistyped_or_missing_key_fails_at_validation_naming_the_runs_results_file() -> None:
    with pytest.raises(
        StoreError, match=r"(?s)run9/results\.json: not a valid ResultsFile.*tasks\.weird\.score"
    ):
        mera_scheme([{"model": "m", "run_dir": "run9", "tasks": {"weird": _block("high")}}])  # type: ignore[arg-type]
    with pytest.raises(StoreError, match=r"(?s)run10/results\.json: not a valid ResultsFile.*tasks"):
        mera_scheme([{"model": "m", "run_dir": "run10", "task": {"weird": _block(0.5)}}])


def test_merge_joins_one_models_runs() -> None:
    image = {"model": "m", "run_dir": "img", "tasks": {"weird": _block(0.5)}}
    audio = {"model": "m", "run_dir": "aud", "tasks": {"aquaria": _block(1.0)}}
    assert len(mera_scheme([image, audio])["rows"]) == 2
    board = mera_scheme([image, audio], merge=True)
    [row] = board["rows"]
    assert row["coverage"] == pytest.approx((1 / 11 + 1 / 4) / 3, abs=1e-6)
    assert row["attempted"] == pytest.approx(0.75)
    assert board["details"][0]["run_dirs"] == ["img", "aud"]
    with pytest.raises(ConfigError, match=r"'m'.*weird.*img.*img2"):
        mera_scheme([image, {**image, "run_dir": "img2"}], merge=True)
