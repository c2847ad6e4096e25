"""``omnieval import lm-eval``: a hand-made lm-eval output (results + sample logs, in lm-eval 0.4's layout)
becomes a run folder whose scores are the ones lm-eval printed, and compare/report read it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# What lm-eval prints for this output (its table): arc_easy acc 0.75 ± 0.25 (4 docs, acc 1,0,1,1: sample std
# 0.5 / sqrt(4)), acc_norm 0.5; gsm8k exact_match 0.5 (strict-match), 1.0 (flexible-extract).
RESULTS = {
    "results": {
        "arc_easy": {
            "alias": "arc_easy",
            "acc,none": 0.75,
            "acc_stderr,none": 0.25,
            "acc_norm,none": 0.5,
            "acc_norm_stderr,none": 0.2886751345948129,
        },
        "gsm8k": {
            "alias": "gsm8k",
            "exact_match,strict-match": 0.5,
            "exact_match_stderr,strict-match": 0.5,
            "exact_match,flexible-extract": 1.0,
            "exact_match_stderr,flexible-extract": 0.0,
        },
    },
    "n-samples": {"arc_easy": {"original": 4, "effective": 4}, "gsm8k": {"original": 2, "effective": 2}},
    "config": {"model": "hf", "model_args": "pretrained=EleutherAI/pythia-70m"},
    "model_name": "EleutherAI/pythia-70m",
    "versions": {"arc_easy": 1.0, "gsm8k": 3.0},
}
ARC = [(0, 1, 1), (1, 0, 0), (2, 1, 0), (3, 1, 1)]  # doc_id, acc, acc_norm
GSM = [
    (0, "18", "18", 1.0, 1.0),
    (1, "3", "The answer is 3", 0.0, 1.0),
]  # doc_id, target, resp, strict, flexible


def _write(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "results_2025-01-01T00-00-00.json").write_text(json.dumps(RESULTS))
    arc = [
        {
            "doc_id": d,
            "target": 0,
            "filtered_resps": [["-1.5", False]],
            "filter": "none",
            "metrics": ["acc", "acc_norm"],
            "acc": a,
            "acc_norm": n,
        }
        for d, a, n in ARC
    ]
    gsm = [
        {
            "doc_id": d,
            "target": t,
            "filtered_resps": [r if f == "flexible-extract" else r.split()[-1]],
            "filter": f,
            "metrics": ["exact_match"],
            "exact_match": s if f == "strict-match" else x,
        }
        for d, t, r, s, x in GSM
        for f in ("strict-match", "flexible-extract")
    ]
    for name, rows in (("arc_easy", arc), ("gsm8k", gsm)):
        (folder / f"samples_{name}_2025-01-01T00-00-00.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows)
        )
    return folder / "results_2025-01-01T00-00-00.json"


def _omnieval(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "omnieval", *args], capture_output=True, text=True, timeout=180, env=env
    )


def test_lm_eval_import_keeps_the_printed_scores_and_compare_and_report_read_it(tmp_path: Path) -> None:
    results_path = _write(tmp_path / "lm")
    run = tmp_path / "run"
    proc = _omnieval("import", "lm-eval", str(results_path), "--output", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "arc_easy: 0.7500 (acc,none, n=4)" in proc.stdout
    results = json.loads((run / "results.json").read_text())
    arc, gsm = results["tasks"]["arc_easy"], results["tasks"]["gsm8k"]
    assert arc["score"] == 0.75 and arc["ci95"] == pytest.approx([0.75 - 0.49, 0.75 + 0.49])
    assert gsm["score"] == 0.5 and gsm["score_metric"] == "exact_match,strict-match" and gsm["n"] == 2
    records = [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]
    by_key = {(r["task"], r["sample_id"]): r for r in records}
    assert len(records) == 6  # one per document: the other filter's lines are not records
    assert sum(r["score"] for r in records if r["task"] == "arc_easy") / 4 == arc["score"]  # records agree
    assert by_key[("gsm8k", "1")]["response"] == "3" and by_key[("gsm8k", "1")]["score"] == 0.0

    flexible = tmp_path / "run_flexible"
    proc = _omnieval(
        "import",
        "lm-eval",
        str(results_path),
        "--output",
        str(flexible),
        "--metric",
        "exact_match,flexible-extract",
    )
    assert (
        proc.returncode != 0 and "arc_easy" in proc.stderr
    )  # arc_easy has no such metric: named, no traceback
    assert "Traceback" not in proc.stderr and not flexible.exists()  # refused before writing anything

    proc = _omnieval("report", str(run), "--no-prompts")
    assert proc.returncode == 0, proc.stderr
    assert (run / "report.html").exists()
    twin = tmp_path / "twin"
    assert _omnieval("import", "lm-eval", str(results_path), "--output", str(twin)).returncode == 0
    proc = _omnieval("compare", str(run), str(twin), "--output", str(tmp_path / "cmp"))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert "arc_easy" in json.dumps(doc) and "gsm8k" in json.dumps(doc)


def test_a_file_that_is_not_lm_eval_output_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps({"tasks": {}}))
    proc = _omnieval("import", "lm-eval", str(bad), "--output", str(tmp_path / "run"))
    assert (
        proc.returncode == 2
        and "not an lm-eval results file" in proc.stderr
        and "Traceback" not in proc.stderr
    )
