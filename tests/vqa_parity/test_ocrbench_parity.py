"""OCRBench against the scoring loop of its own ``example.py`` (vendored, run unchanged)."""

from __future__ import annotations

from omnieval.benchmarks.ocrbench.scoring import FORMULA_DATASET, ocrbench_hit
from tests.vqa_parity.cases import WORDY, mutations, rng
from tests.vqa_parity.official import ocrbench_scoring_loop

LOOP = ocrbench_scoring_loop()


def test_matches_the_official_loop_on_generated_questions() -> None:
    r = rng()
    data, ours = [], []
    for answer in [*WORDY, "x^{2} + 1", "\\frac{a}{b}", "ＡＢＣ", "ABC"]:
        for dataset in ("IIIT5K", FORMULA_DATASET):
            for prediction in [*mutations(answer, r, n=2), f"The answer is {answer}", "ＡＢＣ", "x^{2}+1"]:
                answers = [answer] if r.random() < 0.5 else [r.choice(WORDY), answer]
                data.append(
                    {
                        "type": "Regular Text Recognition",
                        "dataset_name": dataset,
                        "answers": list(answers),
                        "predict": prediction,
                    }
                )
                ours.append(ocrbench_hit(prediction, answers, dataset=dataset))
    scored = LOOP(data)
    assert [float(d["result"]) for d in scored] == ours
    assert 0 < sum(ours) < len(ours)


def test_quirks_and_the_strict_fold() -> None:
    assert ocrbench_hit("10", ["1"], dataset="IIIT5K") == 1.0  # substring
    assert ocrbench_hit("anything", [""], dataset="IIIT5K") == 1.0  # an empty answer matches all
    assert ocrbench_hit("X ^ 2", ["x^2"], dataset=FORMULA_DATASET) == 0.0  # formulas keep case
    assert ocrbench_hit("x ^ 2", ["x^2"], dataset=FORMULA_DATASET) == 1.0  # …and drop spaces
    assert ocrbench_hit("ＡＢＣ", ["abc"], dataset="IIIT5K") == 0.0
    assert ocrbench_hit("ＡＢＣ", ["abc"], dataset="IIIT5K", strict=True) == 1.0
