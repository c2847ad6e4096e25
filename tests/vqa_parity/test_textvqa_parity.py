"""TextVQA accuracy against mmf's ``TextVQAAccuracyEvaluator`` and ``EvalAIAnswerProcessor`` (vendored)."""

from __future__ import annotations

import pytest

from omnieval.benchmarks.textvqa.scoring import normalise_answer, vqa_accuracy
from tests.vqa_parity.cases import NUMBERISH, WORDY, mutations, rng
from tests.vqa_parity.official import functions

_MMF = functions("mmf/m4c_evaluators.py", "EvalAIAnswerProcessor", "TextVQAAccuracyEvaluator")
PROCESSOR = _MMF["EvalAIAnswerProcessor"]()
EVALUATOR = _MMF["TextVQAAccuracyEvaluator"]()


def official(prediction: str, answers: list[str]) -> float:
    return float(EVALUATOR.eval_pred_list([{"pred_answer": prediction, "gt_answers": answers}]))


def test_the_answer_processor_matches_mmf() -> None:
    r = rng()
    texts = WORDY + NUMBERISH + [m for w in WORDY for m in mutations(w, r, n=2)]
    texts += ["I'm", "Im here", "ive done", "none of the 3", "a-b-c, d", "1,2 (x)", "a ;b; c", "x. y. z."]
    for text in texts:
        assert normalise_answer(text) == PROCESSOR(text), text


def test_accuracy_matches_mmf_on_generated_answer_sets() -> None:
    r = rng()
    pool = ["coca cola", "Coca-Cola", "coke", "two", "2", "the cat", "cat", "pepsi"]
    for _ in range(400):
        answers = [r.choice(pool) for _ in range(10)]
        prediction = r.choice([*pool, "nothing", "Cat.", "2."])
        assert vqa_accuracy(prediction, answers) == pytest.approx(official(prediction, answers)), (
            prediction,
            answers,
        )


def test_quirks_and_fixes() -> None:
    assert normalise_answer("5.") == "5"  # the misspelt look-behind strips a period after a digit
    many = "a." * 40
    assert normalise_answer(many).count(".") == 40 - 32  # only 32 periods go (count=re.UNICODE)
    assert normalise_answer(many, strict=True).count(".") == 0
    assert vqa_accuracy("two", ["2"] * 3 + ["x"] * 7) == pytest.approx(official("two", ["2"] * 3 + ["x"] * 7))
    with pytest.raises(ValueError, match="10 human answers"):
        vqa_accuracy("x", ["x"] * 9)
