"""Open (LLM-judged) queries: without a verdict nothing is invented; with one the query is scored."""

from __future__ import annotations

import pytest

from omnieval.benchmarks.megabench.metrics.query import JUDGED_KEY
from omnieval.metrics import bind_metric
from omnieval.types import MetricRef, ScoringInput

INFO = {
    "field_score_function": {"answer": "gpt_4o_as_judge", "year": "exact_str_match"},
    "aggregation": {"function": "mean", "field_weights": {"answer": 3, "year": 1}},
    "response_parse_function": "json",
}
METRIC = bind_metric(MetricRef(name="megabench.query_score", alias="megabench_score"))


def _inp(**metadata: object) -> ScoringInput:
    return ScoringInput(
        response="",
        prediction={"answer": "an essay", "year": "1999"},
        targets=({"answer": "reference", "year": "1999"},),
        metadata={"metric_info": INFO, **metadata},
    )


def test_without_a_verdict_only_rule_fields_count_and_judged_is_zero() -> None:
    out = METRIC(_inp())
    assert out["megabench_judged"] == 0.0 and out["megabench_score"] == 1.0  # only `year`, weight 1 of 1
    assert "megabench.answer" not in out


def test_a_verdict_scores_the_judged_field_with_its_weight() -> None:
    out = METRIC(_inp(**{JUDGED_KEY: {"answer": 0.5}}))
    assert out["megabench_judged"] == 1.0 and out["megabench.answer"] == 0.5
    assert out["megabench_score"] == pytest.approx((3 * 0.5 + 1 * 1.0) / 4)


def test_declared_outputs_are_zero_filled_on_a_failed_sample() -> None:
    from omnieval.runner.scoring import Scorer
    from omnieval.types import MetricRef as Ref
    from omnieval.types import Response, Sample, TaskSpec

    spec = TaskSpec.model_validate(
        {"name": "t", "metrics": [Ref(name="megabench.query_score", alias="megabench_score")]}
    )
    result = Scorer.for_task(spec).score(
        Sample(id="1", input="q", targets=("x",)), Response.from_error("boom")
    )
    assert result.state == "error"
    assert result.metrics == {
        "megabench_score": 0.0,
        "megabench_not_applicable": 0.0,
        "megabench_judged": 0.0,
    }
