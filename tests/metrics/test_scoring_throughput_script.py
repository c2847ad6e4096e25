"""The throughput benchmark script still runs (on a few samples, so the suite stays fast)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "scoring_throughput.py"


def test_benchmark_script_runs_on_a_small_sample(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("scoring_throughput", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    spent = module.main_pass(300, 0)
    assert 0.0 < spent < 5.0
    timings = module.per_metric(0, n=20)
    assert {name for name, _ in timings} >= {"exact_match", "numeric_match", "mc_strict_accuracy", "chrf"}
    assert [ms for _, ms in timings] == sorted((ms for _, ms in timings), reverse=True)
    assert "samples/s" in capsys.readouterr().out
