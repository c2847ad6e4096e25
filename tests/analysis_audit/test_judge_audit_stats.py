"""Judge audit statistics on hand-worked data (the arithmetic is written out in each test)."""

from __future__ import annotations

import math

import pytest

from omnieval.analysis.judge_audit import binary_agreement, flip_rate, judge_cost, length_bias, position_swap


def test_flip_rate_by_hand() -> None:
    stats = flip_rate({"a": [1, 1, 1], "b": [1, 0, 1], "c": [0, None], "d": [7, 7]})
    # c has one valid verdict: left out. Of a, b, d only b flips → 1/3.
    assert (stats["items"], stats["items_skipped"], stats["flipped"]) == (3, 1, 1)
    assert stats["flip_rate"] == pytest.approx(1 / 3)
    # pairwise: a 0/3, b 2/3 ((1,0), (1,1), (0,1)), d 0/1 → mean 2/9
    assert stats["pairwise_disagreement"] == pytest.approx(2 / 9)
    assert stats["flipped_items"] == ["b"]


def test_flip_rate_nothing_to_compare() -> None:
    assert flip_rate({"a": [None, None], "b": [1]})["flip_rate"] is None


def test_position_swap_by_hand() -> None:
    pairs = [("A", "B"), ("A", "A"), ("B", "B"), ("tie", "tie"), ("A", "tie"), (None, "A")]
    stats = position_swap(pairs)
    # consistent: (A,B) and (tie,tie); first-slot twice: (A,A); second-slot twice: (B,B); (A,tie) mismatch
    assert (stats["items"], stats["items_skipped"]) == (5, 1)
    assert (stats["consistent"], stats["first_slot"], stats["second_slot"], stats["tie_mismatch"]) == (
        2,
        1,
        1,
        1,
    )
    assert stats["consistency"] == pytest.approx(2 / 5)
    assert stats["first_slot_rate"] == pytest.approx(1 / 5)


def test_length_bias_point_biserial_by_hand() -> None:
    # x = [0,0,1,1,1], y = [10..50]: cov = 30, sx² = 1.2, sy² = 1000 → r = 30/√1200 = √3/2;
    # Spearman on ranks x = [1.5,1.5,4,4,4], y = [1..5]: 7.5/√(7.5·10) = √3/2 as well
    stats = length_bias([0, 0, 1, 1, 1, None], [10, 20, 30, 40, 50, 999])
    assert (stats["items"], stats["items_skipped"]) == (5, 1)
    assert stats["pearson"] == pytest.approx(math.sqrt(3) / 2)
    assert stats["spearman"] == pytest.approx(math.sqrt(3) / 2)
    assert stats["mean_length_by_verdict"] == {"0.0": 15.0, "1.0": 40.0}
    assert "point-biserial" in stats["note"]


def test_length_bias_negative_for_scores() -> None:
    stats = length_bias([10, 8, 6, 4], [100, 200, 300, 400])
    assert stats["pearson"] == pytest.approx(-1.0)
    assert stats["spearman"] == pytest.approx(-1.0)
    assert stats["mean_length_by_verdict"] == {}


def test_length_bias_undefined_is_none_not_nan() -> None:
    stats = length_bias([1, 1, 1, 1], [10, 20, 30, 40])
    assert stats["pearson"] is None and "constant" in stats["note"]
    assert length_bias([1, 0], [1, 2])["spearman"] is None
    with pytest.raises(ValueError, match="2 verdicts but 1 lengths"):
        length_bias([1, 0], [1])


def test_cohen_kappa_by_hand() -> None:
    first = {"a": 1, "b": 1, "c": 0, "d": 0, "e": 1, "f": None}
    second = {"a": 1, "b": 0, "c": 0, "d": 0, "e": 1, "g": 1}
    stats = binary_agreement(first, second)
    # shared a..e: p_o = 4/5; p_e = 3/5·2/5 + 2/5·3/5 = 0.48; κ = (0.8 − 0.48)/(1 − 0.48) = 8/13
    assert stats["items"] == 5
    assert stats["agreement"] == pytest.approx(0.8)
    assert stats["kappa"] == pytest.approx(8 / 13)
    assert stats["confusion"] == {"00": 2, "01": 0, "10": 1, "11": 2}
    assert (stats["only_first"], stats["only_second"]) == (1, 1)


def test_kappa_undefined_and_bad_labels() -> None:
    same = binary_agreement({"a": 1, "b": 1}, {"a": 1, "b": 1})
    assert same["agreement"] == 1.0 and same["kappa"] is None and "undefined" in same["note"]
    assert binary_agreement({"a": 1, "b": 1}, {"a": 0, "b": 0})["kappa"] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="must be 0 or 1"):
        binary_agreement({"a": 7}, {"a": 1})


def test_judge_cost_by_hand() -> None:
    calls = [
        {"usage": {"prompt_tokens": 10, "completion_tokens": 5}, "latency_s": 0.5},
        {"usage": {"prompt_tokens": 20, "completion_tokens": 7}, "latency_s": 1.5, "error": "unparseable"},
        {"cached": True, "usage": {"prompt_tokens": 99, "completion_tokens": 99}, "latency_s": 9.0},
        {"latency_s": 0.25},
    ]
    cost = judge_cost(calls)
    assert (cost["requests"], cost["cached"], cost["failed"], cost["calls_without_usage"]) == (3, 1, 1, 1)
    assert (cost["prompt_tokens"], cost["completion_tokens"], cost["total_tokens"]) == (30, 12, 42)
    assert cost["latency_s"] == pytest.approx(2.25)
    assert cost["mean_latency_s"] == pytest.approx(0.75)
