from __future__ import annotations

import random

import pytest

from omnieval.aggregate import bootstrap_ci, task_results
from omnieval.sources import Task
from omnieval.types import MetricRef, TaskSpec


def test_bootstrap_ci_brackets_the_mean_and_shrinks_with_n() -> None:
    rng = random.Random(0)
    small = [float(rng.random() < 0.6) for _ in range(50)]
    large = [float(rng.random() < 0.6) for _ in range(5000)]
    lo_s, hi_s = bootstrap_ci(small)  # type: ignore[misc]
    lo_l, hi_l = bootstrap_ci(large)  # type: ignore[misc]
    assert lo_s <= sum(small) / 50 <= hi_s and lo_l <= sum(large) / 5000 <= hi_l
    assert hi_l - lo_l < hi_s - lo_s
    # normal approximation: half-width ≈ 1.96·sqrt(p(1-p)/n)
    p = sum(large) / len(large)
    assert (hi_l - lo_l) / 2 == pytest.approx(1.96 * (p * (1 - p) / len(large)) ** 0.5, rel=0.15)
    assert bootstrap_ci([1.0]) is None


def _rec(sid: str, state: str, em: float, group: str) -> dict:
    return {
        "task": "t",
        "sample_id": sid,
        "state": state,
        "score": em if state == "ok" else 0.0,
        "metrics": {"em": em if state == "ok" else 0.0, "group_em": em if state == "ok" else 0.0},
        "metadata": {"group_id": group},
    }


def test_bootstrap_ci_does_not_depend_on_the_resample_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The indices are drawn in chunks to bound memory; the CI must be the same whatever the chunk
    (one resample per draw, or all at once), so lowering the chunk changed no published CI."""
    import omnieval.aggregate.bootstrap as results

    rng = random.Random(3)
    values = [rng.random() for _ in range(301)]
    cis = []
    for chunk in (1, 7 * 301 + 5, 10**9):
        monkeypatch.setattr(results, "_RESAMPLE_CHUNK", chunk)
        cis.append(bootstrap_ci(values, n_resamples=200))
    assert cis[0] == cis[1] == cis[2]
    assert cis[0] is not None and cis[0][0] < sum(values) / len(values) < cis[0][1]


def test_group_aggregation_and_state_counts() -> None:
    spec = TaskSpec(
        name="t",
        metrics=(
            MetricRef(name="exact_match", alias="em"),
            MetricRef(
                name="exact_match",
                alias="group_em",
                aggregate="group_all",
                aggregate_options={"key": "group_id"},
            ),
        ),
        score="em",
    )
    task = Task.from_samples(spec, [])
    records = [
        _rec("1", "ok", 1, "g1"),
        _rec("2", "ok", 1, "g1"),
        _rec("3", "ok", 1, "g2"),
        _rec("4", "error", 0, "g2"),
        _rec("5", "ok", 0, "g3"),
    ]
    block = task_results([task], records)["t"]
    assert block.states["ok"] == 4 and block.states["error"] == 1 and block.n == 5
    assert block.metrics["em"] == pytest.approx(3 / 5)
    assert block.metrics["group_em"] == pytest.approx(1 / 3)  # only g1 is entirely right
    assert block.score == pytest.approx(3 / 5)


def test_scores_by_prompt_variant() -> None:
    spec = TaskSpec(name="t", metrics=(MetricRef(name="exact_match", alias="em"),), score="em")
    records = [
        {
            "task": "t",
            "sample_id": str(i),
            "state": "ok",
            "score": float(i % 3 == 0),
            "metrics": {"em": float(i % 3 == 0)},
            "variant": f"p{i % 3}",
        }
        for i in range(9)
    ]
    block = task_results([Task.from_samples(spec, [])], records)["t"]
    assert block.model_dump()["by_variant"] == {
        "p0": {"n": 3, "score": 1.0},
        "p1": {"n": 3, "score": 0.0},
        "p2": {"n": 3, "score": 0.0},
    }
    single = [dict(r, variant="default") for r in records]
    assert task_results([Task.from_samples(spec, [])], single)["t"].by_variant == {}


def test_run_facts_never_override_computed_values() -> None:
    """Re-scoring passes the old results.json as the run's facts: a stale aggregate in it must lose."""
    from omnieval.aggregate import compute_results

    stale = {
        "model": "old",
        "states": {"ok": 99},
        "tasks": {"gone": {}},
        "backend": {"provider": "openai"},
        "retries": 3,
    }
    doc = compute_results([], [], model="new", extra=stale).document()
    assert doc["model"] == "new" and doc["tasks"] == {} and doc["states"]["ok"] == 0
    assert doc["backend"] == {"provider": "openai"} and doc["retries"] == 3
    assert list(doc)[:5] == ["schema_version", "model", "omnieval_version", "tasks", "states"]
