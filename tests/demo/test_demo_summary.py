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
            assert f"{name:<8} {task:<16} 1.000" in out  # the oracle scores every task it runs
    assert "blind vs cascade" in out and "demo_audio       blind 1.000  cascade 1.000  diff +0.000" in out
    assert (tmp_path / "compare.json").is_file()
