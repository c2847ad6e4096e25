"""``omnieval diff`` reads results.json and manifest.json through their models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omnieval.errors import StoreError
from omnieval.reports.diff import diff_runs


def _run(root: Path, name: str, score: object) -> Path:
    out = root / name
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"config": {"model": f"m/{name}"}}))
    record = {"task": "t", "sample_id": "0", "state": "ok", "score": 1.0}
    (out / "samples.jsonl").write_text(json.dumps(record) + "\n")
    block = {"score": score, "n": 1, "states": {"ok": 1}}
    (out / "results.json").write_text(json.dumps({"model": f"m/{name}", "tasks": {"t": block}}))
    return out


def test_task_deltas_read_the_typed_scores(tmp_path: Path) -> None:
    diff = diff_runs(_run(tmp_path, "a", 0.25), _run(tmp_path, "b", 0.75))
    assert diff["tasks"] == {"t": {"a": 0.25, "b": 0.75}}
    assert diff["config"] == {"config.model": {"a": "m/a", "b": "m/b"}}


def test_a_mistyped_score_fails_naming_the_file_not_a_silent_string_in_the_diff(tmp_path: Path) -> None:
    a, b = _run(tmp_path, "a", 0.25), _run(tmp_path, "b", "high")
    with pytest.raises(StoreError, match=r"(?s)b/results\.json: not a valid ResultsFile.*tasks\.t\.score"):
        diff_runs(a, b)
