"""DocVQA ANLS against the RRC script's loop as lmms-eval keeps it (``anls``), run from the vendored file."""

from __future__ import annotations

import pytest

from omnieval.benchmarks.docvqa.scoring import anls
from tests.vqa_parity.cases import WORDY, mutations, rng
from tests.vqa_parity.official import functions

_OFFICIAL = functions("lmms_eval/api_metrics.py", "levenshtein_distance", "anls")


def official(prediction: str, answers: list[str]) -> float:
    return float(_OFFICIAL["anls"](answers, [prediction])["anls"])


def test_matches_the_rrc_loop_on_generated_near_misses() -> None:
    r = rng()
    for answer in WORDY:
        others = [answer, r.choice(WORDY)]
        for prediction in mutations(answer, r) + WORDY[:10]:
            for answers in ([answer], others):
                assert anls(prediction, answers) == pytest.approx(official(prediction, answers), abs=1e-12), (
                    prediction,
                    answers,
                )


def test_threshold_and_the_raw_length_quirk() -> None:
    assert anls("abcd", ["abcx"]) == pytest.approx(0.75)
    assert anls("abxy", ["abcd"]) == 0.5  # exactly at the threshold: kept
    assert anls("axyz", ["abcd"]) == 0.0  # below: zero
    # surrounding spaces are normalised away for the distance but counted in the length
    assert anls("  abcx  ", ["abcd"]) == pytest.approx(official("  abcx  ", ["abcd"]))
    assert anls("  abcx  ", ["abcd"]) > anls("abcx", ["abcd"])
    assert anls("  abcx  ", ["abcd"], strict=True) == anls("abcx", ["abcd"])
    assert anls("", [""]) == 1.0
    with pytest.raises(ValueError, match="at least one"):
        anls("x", [])
