"""Pathological input: clear errors or bounded-time failures, never a hang or a crash."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omnieval.benchmarks.megabench.metrics._convert import parse_json, safe_literal
from omnieval.benchmarks.megabench.metrics._program import TIMEOUT_OUTPUT, program_judge, run_program
from omnieval.benchmarks.megabench.metrics._table import FIELD
from omnieval.benchmarks.megabench.metrics.query import _safe, score_query
from omnieval.benchmarks.megabench.parser import parse_megabench
from omnieval.errors import MetricError
from omnieval.types import Sample

INFO = {
    "field_score_function": {"a": "exact_str_match"},
    "aggregation": {"function": "mean", "field_weights": {"a": 1}},
    "response_parse_function": "answer_string",
}


def _timed(fn, limit: float):  # type: ignore[no-untyped-def]
    start = time.monotonic()
    result = fn()
    assert time.monotonic() - start < limit
    return result


@pytest.mark.parametrize(
    "text",
    [
        "Answer: " + "x" * 2_000_000,
        "[" * 200_000 + "]" * 200_000,
        "{" * 100_000,
        "Answer: " + "a, " * 100_000 + "!",
        "**Answer:" + "*" * 200_000,
        "```" + " \n" * 100_000,
        "Answer: ```" + " " * 200_000,
        "**Answer:" + " " * 200_000,
        "```json" + " " * 200_000,
        "\n" * 300_000 + "Answer: B",
    ],
)
def test_megabyte_and_nested_responses_parse_in_bounded_time(text: str) -> None:
    for mode, gold in (
        ("answer_string", {"a": "B"}),
        ("json", {"a": "B", "b": "C"}),
        ("ascii_answer_string", {"a": "B"}),
    ):
        info = {
            **INFO,
            "response_parse_function": mode,
            "field_score_function": dict.fromkeys(gold, "exact_str_match"),
            "aggregation": {"function": "mean", "field_weights": dict.fromkeys(gold, 1)},
        }
        sample = Sample(id="1", targets=(gold,), metadata={"metric_info": info})
        parsed = _timed(lambda s=sample: parse_megabench(text, s), 10.0)
        query, _ = _timed(lambda p=parsed, g=gold, i=info: score_query(p.value, g, i, {}), 10.0)
        assert query in (0.0, 1.0)


def test_exponential_regexes_of_the_original_run_in_linear_time() -> None:
    from omnieval.benchmarks.megabench.metrics._constrained import constrained_generation
    from omnieval.benchmarks.megabench.metrics._numeric import boxed_single_numerical_match

    boxed_single_numerical_match(
        "\\boxed{1}", "1"
    )  # first call imports sympy (seconds on a loaded machine): not timed
    assert _timed(lambda: boxed_single_numerical_match("\\boxed{" + "a" * 3000 + "{", "1"), 5.0) == 0.0
    assert _timed(lambda: constrained_generation(" " * 200_000 + "x", {"rhyming_scheme": "A"}), 5.0) == 1.0


def test_deep_nesting_is_refused_not_recursed() -> None:
    with pytest.raises(ValueError, match="nested"):
        safe_literal("[" * 5000 + "]" * 5000)
    assert parse_json("[" * 5000 + "]" * 5000) == []


def test_malformed_metric_info_and_context_are_clear_errors() -> None:
    with pytest.raises(MetricError, match="not a valid Python dict literal"):
        score_query({"a": "x"}, {"a": "x"}, "{'field_score_function': ", {})
    with pytest.raises(MetricError, match="unknown MEGA-Bench metric 'exact_match_typo'"):
        score_query({"a": "x"}, {"a": "x"}, {**INFO, "field_score_function": {"a": "exact_match_typo"}}, {})
    with pytest.raises(MetricError, match="eval_context must be a dict"):
        score_query({"a": "x"}, {"a": "x"}, INFO, "[1, 2]")
    with pytest.raises(MetricError, match="no weight"):
        score_query(
            {"a": "x"}, {"a": "x"}, {**INFO, "aggregation": {"function": "mean", "field_weights": {}}}, {}
        )


def test_programs_that_loop_fork_or_reach_the_network_fail_in_bounded_time() -> None:
    assert _timed(lambda: run_program("while True:\n    pass", []), 8.0) == TIMEOUT_OUTPUT
    assert run_program("import os\nos.fork()\nprint('forked')", []).startswith("ERROR during execution")
    assert run_program("import socket\nprint('net')", []).startswith("ERROR during execution")
    assert run_program("x = 'a' * (1 << 40)\nprint(len(x))", []).startswith("ERROR during execution")
    assert run_program("print(input()[::-1])", ["abc"]) == "cba"
    cases = {"test_case": [{"input": ["2 3"], "expected": "5"}, {"input": ["1 1"], "expected": "3"}]}
    assert program_judge("a, b = map(int, input().split())\nprint(a + b)", cases) == 0.5


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pred=st.text(max_size=40), gold=st.text(max_size=40))
def test_no_field_metric_leaves_its_range_or_raises(pred: str, gold: str) -> None:
    for name, fn in FIELD.items():
        value = _safe(fn, pred, gold, strict=False)
        low = -1.0 if name == "positive_int_match" else 0.0
        assert low <= value <= 1.0 + 1e-9, (name, pred, gold, value)
