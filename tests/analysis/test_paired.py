"""Paired statistics: hand-worked values and independent checks against scipy / statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from omnieval.analysis.paired import (
    holm,
    mcnemar_exact,
    paired_bootstrap_ci,
    paired_permutation,
    paired_test,
)


def test_mcnemar_hand_worked() -> None:
    # 1 item only A solves, 5 only B solves, 4 concordant: p = 2 * P(X <= 1 | n=6, 1/2) = 2 * 7/64
    a = [1, 0, 0, 0, 0, 0, 1, 1, 0, 0]
    b = [0, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    assert mcnemar_exact(a, b) == pytest.approx(14 / 64)


def test_mcnemar_matches_statsmodels() -> None:
    from statsmodels.stats.contingency_tables import mcnemar

    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 200).astype(float)
    b = np.where(rng.random(200) < 0.2, 1 - a, a)
    table = [
        [np.sum((a == 1) & (b == 1)), np.sum((a == 1) & (b == 0))],
        [np.sum((a == 0) & (b == 1)), np.sum((a == 0) & (b == 0))],
    ]
    assert mcnemar_exact(list(a), list(b)) == pytest.approx(mcnemar(table, exact=True).pvalue)


@pytest.mark.parametrize("n", [1, 2, 7, 30, 31, 400, 20_001])
def test_mcnemar_matches_scipy_binomtest_on_every_split(n: int) -> None:
    from scipy.stats import binomtest

    for only_a in sorted({0, 1, n // 3, n // 2, n // 2 + 1, n - 1, n} & set(range(n + 1))):
        a, b = [1.0] * only_a + [0.0] * (n - only_a), [0.0] * only_a + [1.0] * (n - only_a)
        assert mcnemar_exact(a, b) == pytest.approx(binomtest(only_a, n, 0.5).pvalue, rel=1e-9, abs=1e-300)


def test_compare_statistics_need_no_scipy() -> None:
    """``compare`` runs on the core install (scipy is an extra): the paired tests import nothing else."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['scipy'] = None; from omnieval.analysis.paired import paired_test; "
        "print(paired_test([1, 0, 0, 1], [0, 1, 1, 1]).p_value, paired_test([0.1, 0.5], [0.3, 0.2]).p_value)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr


def test_mcnemar_without_discordant_pairs_is_one() -> None:
    assert mcnemar_exact([1, 0, 1], [1, 0, 1]) == 1.0


def test_permutation_exact_hand_worked() -> None:
    # differences (1, 1, 1): of the 8 sign patterns only (+,+,+) and (-,-,-) reach |sum| = 3
    assert paired_permutation([0, 0, 0, 0.5], [1, 1, 1, 0.5]) == pytest.approx(2 / 8)


def test_permutation_matches_scipy() -> None:
    from scipy.stats import permutation_test

    rng = np.random.default_rng(7)
    a = rng.random(12)
    b = a + rng.normal(0.1, 0.2, 12)
    ref = permutation_test(
        (a, b), lambda x, y: np.mean(y - x), permutation_type="samples", n_resamples=math.inf
    ).pvalue
    assert paired_permutation(list(a), list(b)) == pytest.approx(ref)


def test_permutation_monte_carlo_close_to_exact() -> None:
    from scipy.stats import permutation_test

    rng = np.random.default_rng(11)
    a = rng.random(40)
    b = a + rng.normal(0.05, 0.2, 40)
    ref = permutation_test(
        (a, b), lambda x, y: np.mean(y - x), permutation_type="samples", n_resamples=20_000, random_state=1
    ).pvalue
    assert paired_permutation(list(a), list(b), n_resamples=20_000) == pytest.approx(ref, abs=0.02)


def test_holm_matches_statsmodels() -> None:
    from statsmodels.stats.multitest import multipletests

    pvals = [0.01, 0.04, 0.03, 0.2, 0.001]
    assert holm(pvals) == pytest.approx(list(multipletests(pvals, method="holm")[1]))
    # hand-worked: sorted 0.001*5, 0.01*4, 0.03*3, 0.04*2 -> max(0.09, 0.08), 0.2*1 -> max(0.2, 0.09)
    assert holm(pvals) == pytest.approx([0.04, 0.09, 0.09, 0.2, 0.005])


def test_bootstrap_ci_of_constant_shift_is_the_shift() -> None:
    a = [0.1, 0.5, 0.9, 0.3]
    assert paired_bootstrap_ci(a, [x + 0.25 for x in a]) == pytest.approx((0.25, 0.25))


def test_bootstrap_ci_covers_the_normal_interval() -> None:
    rng = np.random.default_rng(5)
    d = rng.normal(0.1, 1.0, 400)
    lo, hi = paired_bootstrap_ci([0.0] * 400, list(d), n_resamples=4000)
    se = d.std(ddof=1) / 20
    assert lo == pytest.approx(d.mean() - 1.96 * se, abs=0.03)
    assert hi == pytest.approx(d.mean() + 1.96 * se, abs=0.03)


def test_paired_test_picks_the_test_by_score_type() -> None:
    binary = paired_test([1, 0, 1, 0], [1, 1, 1, 1])
    assert (binary.test, binary.diff, binary.n_paired) == ("mcnemar_exact", 0.5, 4)
    graded = paired_test([0.5, 0.2, 0.1], [0.7, 0.2, 0.4])
    assert graded.test == "paired_permutation"
    assert graded.diff == pytest.approx(0.5 / 3)


def test_unequal_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        paired_test([1, 0], [1])
