"""exact_match, contains and the aggregations, with hand-checked cases."""

from __future__ import annotations

import math

import pytest

from omnieval.errors import MetricError, TaskFileError
from omnieval.metrics import aggregations, bind_metric, metrics
from omnieval.types import MetricRef, SampleResult, ScoringInput


def score(
    name: str, response: str, targets: tuple[object, ...], prediction: object = None, **opts: object
) -> float:
    inp = ScoringInput(response=response, prediction=prediction, targets=targets)
    value = metrics.get(name).fn(inp, **opts)
    assert isinstance(value, float)
    return value


@pytest.mark.parametrize(
    ("response", "targets", "expected"),
    [
        ("Ёлка", ("елка",), 1.0),
        ("  «Москва»! ", ("москва",), 1.0),
        ("МОСКВА\n\tгород", ("Москва город",), 1.0),
        ("Москва", ("Париж", "москва"), 1.0),
        ("Москва.", ("Санкт-Петербург",), 0.0),
        ("ｆｕｌｌ ｗｉｄｔｈ", ("full width",), 1.0),  # NFKC
        ("", ("Москва",), 0.0),
        ("42", (42,), 1.0),
        ("42", (42.0,), 1.0),
    ],
)
def test_exact_match_normalised(response: str, targets: tuple[object, ...], expected: float) -> None:
    assert score("exact_match", response, targets) == expected


def test_exact_match_without_normalisation_is_literal() -> None:
    assert score("exact_match", " Ёлка ", ("Ёлка",), normalize=False) == 1.0
    assert score("exact_match", "Ёлка", ("елка",), normalize=False) == 0.0


def test_exact_match_prefers_prediction_over_response() -> None:
    assert score("exact_match", "Ответ: B", ("B",), prediction="B") == 1.0
    assert score("exact_match", "B", ("B",), prediction="C") == 0.0


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("Рассуждаю долго. ОТВЕТ: Москва", 1.0),
        ("ответ москва", 1.0),  # case-insensitive, colon optional
        ("Answer: Париж. ANSWER: Москва", 1.0),  # the last marker counts
        ("ОТВЕТ: Москва. А может ОТВЕТ: Париж", 0.0),
        ("Москва", 1.0),  # instruction breached: the whole answer is assessed
        ("Рассуждаю: Москва", 0.0),
    ],
)
def test_exact_match_mera_answer_rule(response: str, expected: float) -> None:
    assert score("exact_match", response, ("Москва",), answer_marker=True) == expected
    if "ОТВЕТ" in response.upper() or "ANSWER" in response.upper():
        assert score("exact_match", response, ("Москва",)) == 0.0


def test_exact_match_needs_targets() -> None:
    with pytest.raises(MetricError, match="no gold targets"):
        score("exact_match", "x", ())


@pytest.mark.parametrize(
    ("response", "targets", "opts", "expected"),
    [
        ("Это, конечно, Москва!", ("москва",), {}, 1.0),
        ("Москвария", ("москва",), {}, 0.0),
        ("Москвария", ("москва",), {"whole_words": False}, 1.0),
        ("ничего", ("",), {}, 0.0),
    ],
)
def test_contains(response: str, targets: tuple[str, ...], opts: dict[str, bool], expected: float) -> None:
    assert score("contains", response, targets, **opts) == expected


def _result(group: object) -> SampleResult:
    meta = {} if group is None else {"grp": group}
    return SampleResult(task="t", sample_id="s", state="ok", metadata=meta)


def test_mean_aggregation() -> None:
    mean = aggregations.get("mean")
    assert mean([], []) == 0.0
    assert mean([1.0, 0.0, 0.5], [_result(None)] * 3) == pytest.approx(0.5)


def test_group_all_counts_a_group_only_when_all_correct() -> None:
    group_all = aggregations.get("group_all")
    values = [1.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    results = [_result(g) for g in ("a", "a", "b", "b", None, None)]
    # groups: a=1, b=0, two ungrouped singles (1 and 0) → 2 of 4
    assert group_all(values, results, key="grp") == pytest.approx(0.5)
    assert group_all([], [], key="grp") == 0.0
    assert group_all([0.999], [_result("a")], key="grp") == 0.0


def test_group_all_leaves_out_a_group_with_a_missing_value() -> None:
    group_all = aggregations.get("group_all")
    nan = float("nan")
    results = [_result(g) for g in ("a", "a", "b", "b", "c")]
    # a: 1 and no value → undecided, left out (never credited); b: a value 0 beside no value → also left out
    assert group_all([1.0, nan, 0.0, nan, 1.0], results, key="grp") == pytest.approx(1.0)
    assert group_all([1.0, nan, 1.0, 0.0, 0.0], results, key="grp") == pytest.approx(0.0)
    assert math.isnan(group_all([nan, 1.0], results[:2], key="grp"))  # nothing decided: no value, not 0


def test_a_bound_group_metric_counts_groups_kept_and_left_out() -> None:
    nan = float("nan")
    results = [_result(g) for g in ("a", "a", "b", "b", "c", None)]
    values = [1.0, nan, 0.0, 1.0, nan, 1.0]  # a, c: undecided; b and the ungrouped single: counted
    grouped = bind_metric(
        MetricRef(name="exact_match", aggregate="group_all", aggregate_options={"key": "grp"})
    )
    assert grouped.group_counts(values, results) == (2, 2)
    assert grouped.aggregate(values, results) == pytest.approx(0.5)  # the same groups: b=0, single=1
    assert (
        bind_metric(MetricRef(name="exact_match")).group_counts(values, results) is None
    )  # a mean: no groups


def test_group_all_rejects_misaligned_input() -> None:
    with pytest.raises(MetricError, match="2 values but 1 results"):
        aggregations.get("group_all")([1.0, 1.0], [_result("a")], key="grp")


def test_bound_metric_checks_options_and_aggregates() -> None:
    bound = bind_metric(MetricRef(name="exact_match", options={"answer_marker": True}, alias="em"))
    assert bound(ScoringInput(response="ОТВЕТ: да", targets=("Да",))) == {"em": 1.0}
    with pytest.raises(TaskFileError, match="does not take"):
        bind_metric(MetricRef(name="exact_match", options={"marker": True}))
    with pytest.raises(TaskFileError, match="does not take"):
        bind_metric(MetricRef(name="exact_match", aggregate="group_all", aggregate_options={"by": "x"}))


def test_group_all_needs_a_key() -> None:
    with pytest.raises(MetricError, match="needs option 'key'"):
        aggregations.get("group_all")([1.0], [_result("a")])
