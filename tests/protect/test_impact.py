"""`omnieval protect impact`: paired CIs of the score change a watermark causes, in percentage points."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from omnieval.cli.app import app
from omnieval.protect.impact import abs_interval
from omnieval.testing.runs import write_synthetic_run

runner = CliRunner()


def test_abs_interval_by_hand() -> None:
    assert abs_interval(-0.5, 2.0) == (0.0, 2.0)
    assert abs_interval(-3.0, -1.0) == (1.0, 3.0)
    assert abs_interval(0.4, 1.2) == (0.4, 1.2)
    assert repr(abs_interval(0.0, 0.0)) == "(0.0, 0.0)"  # no "-0.0" bound for an unchanged score


def _scores(run: Path) -> dict[tuple[str, str], float]:
    out = {}
    for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("scored", True):  # failed samples score 0 and stay in the pairs, as in compare
            out[(rec["task"], rec["sample_id"])] = float(rec["score"] or 0.0)
    return out


def test_impact_matches_an_independent_paired_difference(tmp_path: Path) -> None:
    clean = write_synthetic_run(tmp_path / "clean", n_samples=400, skill=0.6, seed=1)
    marked = write_synthetic_run(tmp_path / "marked", n_samples=400, skill=0.55, seed=2)
    result = runner.invoke(app, ["protect", "impact", str(clean), str(marked), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    a, b = _scores(clean), _scores(marked)
    for task, row in report["tasks"].items():
        keys = [k for k in a if k[0] == task and k in b]
        expected = 100 * sum(b[k] - a[k] for k in keys) / len(keys)
        assert row["n_paired"] == len(keys)
        assert abs(row["diff_pp"] - expected) < 1e-6
        lo, hi = row["ci95_pp"]
        assert lo <= row["diff_pp"] <= hi
        assert row["abs_ci95_pp"] == [round(v, 4) for v in abs_interval(lo, hi)]
        assert row["within_tolerance"] == (row["abs_ci95_pp"][1] < 5.0)


def test_marked_images_leave_an_oracle_run_unchanged(tmp_path: Path) -> None:
    """The whole workflow: generate a suite, watermark it, run both, compare."""
    gen = runner.invoke(
        app, ["generate", "shapes", "--output", str(tmp_path / "clean_data"), "--seed", "3", "--n", "12"]
    )
    assert gen.exit_code == 0, gen.output
    mark = runner.invoke(
        app,
        [
            "protect",
            "mark",
            "--kind",
            "image-visible",
            "--input",
            str(tmp_path / "clean_data"),
            "--output",
            str(tmp_path / "marked_data"),
            "--text",
            "MERA",
        ],
    )
    assert mark.exit_code == 0 and json.loads(mark.output)["marked"] == 12, mark.output
    for name in ("clean_data", "marked_data"):
        run = runner.invoke(
            app,
            [
                "run",
                "--tasks",
                f"generated:{tmp_path / name}",
                "--model",
                "baseline/oracle",
                "--output",
                str(tmp_path / f"run_{name}"),
                "--quiet",
            ],
        )
        assert run.exit_code == 0, run.output
    result = runner.invoke(
        app,
        ["protect", "impact", str(tmp_path / "run_clean_data"), str(tmp_path / "run_marked_data"), "--json"],
    )
    report = json.loads(result.output)
    assert report["tasks"] and all(
        r["diff_pp"] == 0.0 and r["within_tolerance"] for r in report["tasks"].values()
    )
    # the marked images change each task's content hash: expected here, so a note rather than a warning
    assert report["warnings"] == [] and len(report["notes"]) == len(report["tasks"])
    assert all("hash differs" in note and "expected" in note for note in report["notes"])
