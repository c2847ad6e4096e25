"""The external acceptance path: ``omnieval run --tasks megabench:ROWS --model replay/RESPONSES``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.megabench.conformance import SKIP_WITHOUT_CASES, load_cases

pytestmark = pytest.mark.skipif(SKIP_WITHOUT_CASES, reason="../shared conformance cases not present")

SKIP_METRICS = {"program_judge", "constrained_generation", "latex_expr_equality"}  # keep the run short


def test_samples_jsonl_score_is_the_original_query_score(tmp_path: Path) -> None:
    rows = [r for r in load_cases() if r["metric"] not in SKIP_METRICS][::3]
    fields = (
        "id",
        "task_name",
        "task_description",
        "global_media",
        "example_text",
        "example_media",
        "query_text",
        "query_media",
        "answer",
        "metric_info",
        "eval_context",
    )
    (tmp_path / "rows.jsonl").write_text(
        "".join(json.dumps({k: r[k] for k in fields}) + "\n" for r in rows), encoding="utf-8"
    )
    (tmp_path / "responses.jsonl").write_text(
        "".join(
            json.dumps({"task": r["task_name"], "sample_id": str(r["id"]), "response": r["response"]}) + "\n"
            for r in rows
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            f"megabench:{tmp_path / 'rows.jsonl'}",
            "--model",
            f"replay/{tmp_path / 'responses.jsonl'}",
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    expected = {(r["task_name"], str(r["id"])): r["expected_score"] for r in rows}
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(rows)
    wrong = [
        (rec["task"], rec["sample_id"], rec["score"], expected[(rec["task"], rec["sample_id"])])
        for rec in records
        if abs(rec["score"] - max(0.0, expected[(rec["task"], rec["sample_id"])])) > 1e-6
    ]
    assert not wrong  # -1 ("not applicable") is reported as 0, see docs/benchmarks/megabench.md
