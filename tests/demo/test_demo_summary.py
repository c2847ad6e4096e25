"""The demo's closing summary (scripts/demo.py) reads the typed results and the typed comparison: run on
oracle answers of the demo's own tasks, it names every run and task and the blind-vs-cascade pairs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import omnieval

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "demo.py"


def _demo_module() -> object:
    spec = importlib.util.spec_from_file_location("omnieval_demo_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_demo_summary_reads_typed_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo = _demo_module()
    runs = demo.RUNS  # type: ignore[attr-defined]
    results = {
        name: omnieval.evaluate(
            tasks=list(tasks), model="baseline/oracle", output=tmp_path / name, limit=2, quiet=True
        ).results
        for name, tasks in runs.items()
    }
    demo._summary(results, tmp_path)  # type: ignore[attr-defined]
    out = capsys.readouterr().out
    for name, tasks in runs.items():
        for task in tasks:
            metric = results[name].tasks[task].score_metric
            # the oracle scores every task it runs; each score names its own metric (the header said
            # "score = numeric_match" while demo_video scores exact match)
            assert f"{name:<8} {task:<16} 1.000 {metric}" in out
    assert "score = numeric_match" not in out
    assert "blind vs cascade" in out and "demo_audio       blind 1.000  cascade 1.000  diff +0.000" in out
    assert "95% paired bootstrap" in out and "mcnemar_exact: exact McNemar test" in out  # both named
    assert (tmp_path / "compare.json").is_file()


def test_a_score_with_no_sample_ok_says_why() -> None:
    """Cascade demo_image_text showed 0.333 with no sample ok and no word why: truncated text is scored."""
    from omnieval.reports.problems import truncated_note
    from omnieval.types.files import TaskResults

    def block(states: dict[str, int], scoring: str) -> TaskResults:
        return TaskResults(score=0.333, n=sum(states.values()), states=states, truncated_scoring=scoring)

    note = truncated_note("demo_image_text", block({"ok": 0, "truncated": 3}, "score_text"))
    assert note is not None and "3 of 3 responses of demo_image_text were cut at max_tokens" in note
    assert "score_text" in note
    assert truncated_note("t", block({"ok": 0, "truncated": 3}, "zero")) is None
    assert truncated_note("t", block({"ok": 3}, "score_text")) is None
