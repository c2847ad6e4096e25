"""OLS prompt sensitivity (checked against numpy least squares) and resampling stability."""

from __future__ import annotations

import numpy as np
import pytest

from omnieval.analysis.sensitivity import prompt_sensitivity
from omnieval.analysis.stability import bootstrap_by_task_size, macro_bootstrap_ci, subset_draws


def _rows(effect: float, *, n: int = 120, seed: int = 0) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        prompt, model, engine = f"p{i % 3}", f"m{i % 2}", "vllm" if i % 4 < 2 else "hf"
        value = (
            0.4 + (effect if prompt == "p2" else 0.0) + (0.1 if model == "m1" else 0.0) + rng.normal(0, 0.05)
        )
        rows.append({"metric": value, "prompt": prompt, "model": model, "engine": engine})
    return rows


def test_ols_coefficients_match_least_squares() -> None:
    rows = _rows(0.2)
    out = prompt_sensitivity(rows)
    x = np.array(
        [
            [1, r["prompt"] == "p1", r["prompt"] == "p2", r["model"] == "m1", r["engine"] == "vllm"]
            for r in rows
        ],
        dtype=float,
    )
    beta = np.linalg.lstsq(x, np.array([r["metric"] for r in rows], dtype=float), rcond=None)[0]
    by_prompt = {r["prompt"]: r for r in out["prompts"]}
    assert out["baseline_prompt"] == "p0"
    assert out["formula"] == "metric ~ C(prompt) + C(model) + C(engine)"
    assert by_prompt["p1"]["coef"] == pytest.approx(beta[1])
    assert by_prompt["p2"]["coef"] == pytest.approx(beta[2])
    assert by_prompt["p2"]["significant"] and by_prompt["p2"]["p_value"] < 1e-6
    assert not by_prompt["p1"]["significant"]
    assert out["warning"] is None


def test_single_level_factor_is_dropped_and_said() -> None:
    rows = [{**r, "engine": "vllm"} for r in _rows(0.0)]
    out = prompt_sensitivity(rows)
    assert out["dropped_factors"] == ["engine"]
    assert "engine" not in out["formula"]


def test_one_prompt_is_refused() -> None:
    with pytest.raises(ValueError, match="at least two prompts"):
        prompt_sensitivity([{"metric": 1.0, "prompt": "a", "model": "m", "engine": "e"}])


def test_bootstrap_spread_shrinks_like_one_over_root_n() -> None:
    rows = bootstrap_by_task_size({"t1": [0, 1] * 10, "t2": [0, 1] * 10}, sizes=(4, 16), n_resamples=20_000)
    # Bernoulli(1/2) per item, two tasks: std of the macro mean = 0.5 / sqrt(2 n)
    assert rows[0]["macro_std"] == pytest.approx(0.5 / np.sqrt(8), rel=0.05)
    assert rows[1]["macro_std"] == pytest.approx(0.5 / np.sqrt(32), rel=0.05)
    assert rows[0]["macro_mean"] == pytest.approx(0.5, abs=0.01)


def test_subset_draws_full_size_has_no_spread() -> None:
    values = [0.0, 1.0, 1.0, 0.0, 1.0]
    out = subset_draws(values, size=5, draws=10)
    assert out["std"] == pytest.approx(0.0)
    assert (out["mean"], out["min"], out["max"]) == pytest.approx((0.6, 0.6, 0.6))
    half = subset_draws([0.0, 1.0] * 50, size=50, draws=100)
    assert 0.0 < half["std"] < 0.1 and half["draws"] == 100
    with pytest.raises(ValueError, match="subset size"):
        subset_draws(values, size=6)


def _brute_force_macro_ci(per_task: list[list[float]], *, n_resamples: int, seed: int) -> tuple[float, float]:
    """The textbook stratified bootstrap, item by item (an independent second computation)."""
    import random

    rng = random.Random(seed)
    macro = sorted(
        sum(sum(rng.choices(values, k=len(values))) / len(values) for values in per_task) / len(per_task)
        for _ in range(n_resamples)
    )
    return macro[int(0.025 * n_resamples)], macro[int(0.975 * n_resamples) - 1]


def test_macro_bootstrap_ci_matches_item_resampling_and_the_normal_interval() -> None:
    rng = np.random.default_rng(7)
    binary = [float(x) for x in rng.integers(0, 2, 200)]  # few distinct values: multinomial draws
    graded = [float(x) for x in rng.uniform(0, 1, 300)]  # many distinct values: items resampled
    tasks = [binary, graded, [0.0, 1.0, 1.0, 1.0]]
    lo, hi = macro_bootstrap_ci(tasks, n_resamples=20_000)
    ref_lo, ref_hi = _brute_force_macro_ci(tasks, n_resamples=20_000, seed=1)
    assert (lo, hi) == pytest.approx((ref_lo, ref_hi), abs=0.006)
    lo, hi = macro_bootstrap_ci(tasks[:2], n_resamples=20_000)  # large tasks: close to the normal interval
    se = np.sqrt(sum(np.var(t) / len(t) for t in tasks[:2])) / 2  # tasks are independent strata
    centre = float(np.mean([np.mean(t) for t in tasks[:2]]))
    assert lo == pytest.approx(centre - 1.96 * se, abs=0.015) and hi == pytest.approx(
        centre + 1.96 * se, abs=0.015
    )


def test_macro_bootstrap_ci_needs_two_items_per_task() -> None:
    assert macro_bootstrap_ci([[1.0, 0.0], [1.0]]) is None and macro_bootstrap_ci([]) is None
    assert macro_bootstrap_ci([[0.5, 0.5], [1.0, 1.0]]) == pytest.approx((0.75, 0.75))  # no spread, no width
