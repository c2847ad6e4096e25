"""Agreement statistics on hand-worked tables (POLLUX App. D.2 formulas)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from omnieval.analysis import (
    confusion_matrix,
    judge_substitution_vc,
    mean_absolute_error,
    mean_bias,
    spearman,
    unique_mode,
    vc_band,
    vc_random_baseline,
    verdict_confidence,
)
from omnieval.analysis.agreement import judge_substitution_vc_exact


def test_verdict_confidence_paper_example() -> None:
    assert verdict_confidence([0, 1, 2, 2, 2]) == pytest.approx(0.6)
    assert verdict_confidence([1, 1]) == 1.0
    assert verdict_confidence([0, 1]) == 0.5


def test_unique_mode_none_on_ties() -> None:
    assert unique_mode([1, 2]) is None
    assert unique_mode([0, 0, 2, 2, 1]) is None
    assert unique_mode([0, 2, 2]) == 2
    assert unique_mode([1]) == 1


def test_random_baseline_three_by_three_is_17_over_27() -> None:
    assert vc_random_baseline(n_raters=3, n_labels=3) == pytest.approx(17 / 27)
    assert vc_random_baseline(n_raters=2, n_labels=3) == pytest.approx(2 / 3)
    assert vc_random_baseline(n_raters=1, n_labels=5) == 1.0


@pytest.mark.parametrize(("n", "k"), [(4, 3), (5, 2), (3, 5)])
def test_random_baseline_matches_brute_force(n: int, k: int) -> None:
    tuples = list(product(range(k), repeat=n))
    brute = sum(Fraction(max(t.count(v) for v in range(k)), n) for t in tuples) / len(tuples)
    assert vc_random_baseline(n_raters=n, n_labels=k) == pytest.approx(float(brute))


def test_vc_bands() -> None:
    assert [vc_band(v) for v in (0.59, 0.6, 0.8, 0.85, 1.0)] == [
        "poor",
        "moderate",
        "good",
        "excellent",
        "excellent",
    ]


def test_judge_substitution_hand_worked() -> None:
    # [0,0,2,2,2] with judge 2: replacing a 0 gives 4/5 (2 ways), replacing a 2 leaves 3/5 (3 ways) → 0.68
    assert judge_substitution_vc_exact([0, 0, 2, 2, 2], 2) == pytest.approx(0.68)
    # a unanimous panel and a judge that agrees: every trial is 1
    rng = np.random.default_rng(0)
    assert judge_substitution_vc([1, 1, 1], 1, trials=100, rng=rng) == 1.0
    # [0, 1] with judge 1: replacing 0 → 1.0, replacing 1 → 0.5; 100 seeded trials land near 0.75
    first = judge_substitution_vc([0, 1], 1, trials=100, rng=np.random.default_rng(7))
    again = judge_substitution_vc([0, 1], 1, trials=100, rng=np.random.default_rng(7))
    assert first == again and 0.65 < first < 0.85
    # each trial is 1.0 or 0.5, so the mean is 0.5 + 0.5 * (share of trials replacing the 0)
    assert (first - 0.5) * 200 == pytest.approx(round((first - 0.5) * 200))


def test_mae_bias_spearman_hand_worked() -> None:
    judge = [1, 1, 1, 2]
    means = [5 / 3, 0.5, 1.0, 1.2]
    # ranks: judge (2,2,2,4), means (4,1,2,3) → sxy=1, sxx=3, syy=5 → 1/sqrt(15)
    assert spearman(judge, means) == pytest.approx(15**-0.5)
    assert mean_bias(judge, means) == pytest.approx(1.25 - (5 / 3 + 2.7) / 4)
    assert mean_absolute_error([1, 1, 2], [2, 1, 2]) == pytest.approx(1 / 3)
    assert mean_absolute_error([], []) is None
    assert spearman([1, 1, 1], [0, 1, 2]) is None  # constant side: undefined, not 0


def test_spearman_agrees_with_scipy_on_ties() -> None:
    from scipy.stats import spearmanr

    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, size=60).tolist()
    y = (np.asarray(x) + rng.integers(-1, 2, size=60)).tolist()
    assert spearman(x, y) == pytest.approx(float(spearmanr(x, y).statistic))


def test_confusion_matrix_rounds_real_predictions_half_up() -> None:
    out = confusion_matrix([0, 1, 2, 2], [0.4, 1.5, 2.0, 3.7], labels=[0, 1, 2])
    assert out["matrix"] == [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
    assert out["n_outside_labels"] == 1


def test_real_valued_judge_enters_vc_rounded_and_mae_unrounded() -> None:
    from omnieval.analysis.judge_agreement import AgreementInput, judge_agreement

    data = AgreementInput(human={("x", "c"): {"a": 2.0, "b": 2.0, "c": 1.0}}, judge={("x", "c"): 1.6})
    out = judge_agreement(data, reference="mode")
    assert out["mae"] == pytest.approx(0.4)  # |1.6 - 2|
    # 1.6 rounds half-up to 2: replacing a 2 keeps 2/3, replacing the 1 gives 3/3 → (2/3 + 2/3 + 1) / 3
    assert out["judge_vc_expected"] == pytest.approx(7 / 9)
    mean = judge_agreement(data, reference="mean")
    assert mean["mae"] == pytest.approx(abs(1.6 - 5 / 3))
