"""ChartQA relaxed accuracy against lmms-eval's ``relaxed_correctness``, run from the vendored file."""

from __future__ import annotations

import itertools

from omnieval.benchmarks.chartqa.scoring import relaxed_correct
from tests.vqa_parity.cases import NUMBERISH, WORDY, rng
from tests.vqa_parity.official import functions

OFFICIAL = functions("lmms_eval/chartqa_utils.py", "relaxed_correctness")["relaxed_correctness"]


def test_matches_lmms_eval_on_every_pair_of_edge_cases() -> None:
    values = NUMBERISH + WORDY[:20]
    for prediction, target in itertools.product(values, values):
        assert relaxed_correct(prediction, target) == OFFICIAL(prediction, target), (prediction, target)


def test_matches_lmms_eval_on_generated_numbers() -> None:
    r = rng()
    for _ in range(3000):
        target = round(r.uniform(-500, 500), r.randrange(0, 3))
        prediction = target * r.uniform(0.9, 1.1)
        forms = [str(target), f"{target}%", f"{prediction:.2f}", f"{prediction:,.1f}", f"{prediction:.1f}%"]
        p, t = r.choice(forms), r.choice(forms)
        assert relaxed_correct(p, t) == OFFICIAL(p, t), (p, t)


def test_quirks_and_their_fixes() -> None:
    assert relaxed_correct("12.5", "12") and OFFICIAL("12.5", "12")  # within 5 %
    assert not relaxed_correct("1,000", "1000")  # a comma is not a number…
    assert relaxed_correct("1,000", "1000", strict=True)  # …until strict
    assert not relaxed_correct("0.0", "0")  # a zero target compares as text
    assert relaxed_correct("0.0", "0", strict=True)
    assert not relaxed_correct("Yes.", "yes")
    assert relaxed_correct("Yes.", "yes", strict=True)
    assert relaxed_correct(" 12\n", "12")  # float() strips whitespace
    assert relaxed_correct("12%", "0.12")
