"""``omnieval compare``: the fixed compare.json shape, hand-worked paired statistics, and bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from omnieval.analysis.paired import holm
from omnieval.errors import ConfigError, StoreError
from omnieval.reports.compare import compare_runs
from omnieval.reports.compare_page import write_comparison


def _run(root: Path, name: str, scores: dict[str, list[float]], *, version: int = 1, ids: str = "") -> Path:
    out = root / name
    out.mkdir(parents=True)
    lines, tasks = [], {}
    for task, values in scores.items():
        for i, value in enumerate(values):
            lines.append(
                json.dumps(
                    {
                        "task": task,
                        "sample_id": f"{ids}{i}",
                        "state": "ok",
                        "score": value,
                        "response": f"{name} answer {i}",
                        "targets": ["x"],
                        "metadata": {},
                    }
                )
            )
        tasks[task] = {
            "score": sum(values) / len(values),
            "n": len(values),
            "states": {"ok": len(values)},
            "version": str(version),
            "metadata": {"human_baseline": 0.9},
        }
    (out / "samples.jsonl").write_text("\n".join(lines) + "\n")
    (out / "results.json").write_text(json.dumps({"model": f"m/{name}", "tasks": tasks}))
    return out


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "omnieval", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_compare_json_fixed_interface(tmp_path: Path) -> None:
    # binary task: 1 sample only A solves, 5 only B solves (McNemar p = 14/64); graded task: permutation test
    a = _run(tmp_path, "alpha", {"mc": [1, 0, 0, 0, 0, 0, 1, 1, 0, 0], "gen": [0.1, 0.4, 0.5]})
    b = _run(tmp_path, "beta", {"mc": [0, 1, 1, 1, 1, 1, 1, 1, 0, 0], "gen": [0.3, 0.4, 0.9]})
    c = _run(tmp_path, "gamma", {"mc": [1] * 10, "gen": [0.2, 0.4, 0.6]})
    out = tmp_path / "cmp"
    proc = _cli("compare", str(a), str(b), str(c), "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "compare.json").read_text())
    assert doc["runs"] == ["alpha", "beta", "gamma"]
    mc = doc["tasks"]["mc"]
    assert mc["scores"] == {"alpha": 0.3, "beta": 0.7, "gamma": 1.0}
    assert [(p["a"], p["b"]) for p in mc["pairwise"]] == [
        ("alpha", "beta"),
        ("alpha", "gamma"),
        ("beta", "gamma"),
    ]
    first = mc["pairwise"][0]
    assert set(first) == {"a", "b", "diff", "ci95", "p_value", "test", "n_paired"}
    assert first["diff"] == pytest.approx(0.4) and first["n_paired"] == 10
    assert first["test"] == "mcnemar_exact" and first["p_value"] == pytest.approx(14 / 64)
    assert first["ci95"][0] <= 0.4 <= first["ci95"][1]
    gen = doc["tasks"]["gen"]["pairwise"][0]
    # differences (0.2, 0, 0.4): sign patterns over the two non-zero ones, |sum| >= 0.6 in 2 of 4
    assert gen["test"] == "paired_permutation" and gen["p_value"] == pytest.approx(0.5)
    assert gen["diff"] == pytest.approx(0.2)
    holm_rows = [h for h in doc["multiple_comparisons"]["adjusted"] if (h["a"], h["b"]) == ("alpha", "beta")]
    assert [h["p_holm"] for h in holm_rows] == pytest.approx(holm([14 / 64, 0.5]))
    assert "Holm" in doc["multiple_comparisons"]["statement"] and "Holm" in proc.stdout
    assert doc["flips"]["alpha → beta"]["n_flipped"] == {"mc": 6, "gen": 2}
    html = (out / "compare.html").read_text(encoding="utf-8")
    assert "Holm" in html and "human baseline" in html
    assert {p.name for p in (out / "tables").iterdir()} >= {"leaderboard.md", "pairwise.csv", "flips.json"}


def test_different_task_versions_warn_loudly(tmp_path: Path) -> None:
    a = _run(tmp_path, "v1", {"mc": [1, 0, 1]}, version=1)
    b = _run(tmp_path, "v2", {"mc": [1, 1, 1]}, version=2)
    proc = _cli("compare", str(a), str(b), "--output", str(tmp_path / "cmp"))
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" in proc.stderr and "task 'mc': version differs (v1: 1, v2: 2)" in proc.stderr
    doc: dict[str, Any] = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert doc["warnings"] == ["task 'mc': version differs (v1: 1, v2: 2)"]
    assert "not strictly comparable" in (tmp_path / "cmp" / "compare.html").read_text(encoding="utf-8")


def test_no_overlapping_samples_is_a_clear_error(tmp_path: Path) -> None:
    a = _run(tmp_path, "a", {"mc": [1, 0]}, ids="a")
    b = _run(tmp_path, "b", {"mc": [1, 1]}, ids="b")
    with pytest.raises(ConfigError, match="share no sample"):
        compare_runs([a, b])
    proc = _cli("compare", str(a), str(b), "--output", str(tmp_path / "cmp"))
    assert proc.returncode == 2 and "share no sample" in proc.stderr and "Traceback" not in proc.stderr


def test_same_directory_names_are_refused(tmp_path: Path) -> None:
    a = _run(tmp_path / "x", "run", {"mc": [1]})
    b = _run(tmp_path / "y", "run", {"mc": [0]})
    with pytest.raises(ConfigError, match="distinct names"):
        compare_runs([a, b])


def test_a_killed_run_is_compared_with_a_warning_naming_what_was_left_out(tmp_path: Path) -> None:
    a = _run(tmp_path, "full", {"mc": [1, 0, 1, 1]})
    b = _run(tmp_path, "killed", {"mc": [1, 1, 1, 1]})
    with (b / "samples.jsonl").open("a") as fh:
        fh.write('{"task": "mc", "sample_id": "4", "sta')  # cut by kill -9
    (b / "results.json").unlink()
    proc = _cli("compare", str(a), str(b), "--output", str(tmp_path / "cmp"))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert (
        doc["tasks"]["mc"]["pairwise"][0]["n_paired"] == 4 and doc["tasks"]["mc"]["scores"]["killed"] == 1.0
    )
    assert doc["warnings"] == [
        "run killed: no results.json (unfinished run?): task scores are plain means of the readable records",
        "run killed: 1 line(s) of samples.jsonl could not be read "
        "(e.g. cut by a killed run) and are left out",
    ]
    assert "WARNING" in proc.stderr and "could not be read" in proc.stderr


def test_a_task_with_hidden_answers_has_a_null_score_not_zero(tmp_path: Path) -> None:
    a = _run(tmp_path, "open", {"mc": [1, 0, 1], "secret": [1, 1]})
    b = _run(tmp_path, "hidden", {"mc": [1, 1, 1], "secret": [0, 0]})
    results = json.loads((b / "results.json").read_text())
    results["tasks"]["secret"].update(
        score=0.0, scored=False, n_scored=0
    )  # what aggregation writes for hidden answers
    (b / "results.json").write_text(json.dumps(results))
    lines = [json.loads(x) for x in (b / "samples.jsonl").read_text().splitlines()]
    (b / "samples.jsonl").write_text(
        "".join(json.dumps({**r, "scored": r["task"] != "secret"}) + "\n" for r in lines)
    )
    proc = _cli("compare", str(a), str(b), "--output", str(tmp_path / "cmp"))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    secret = doc["tasks"]["secret"]
    assert secret["scores"] == {"open": 1.0, "hidden": None}
    assert secret["pairwise"] == [
        {"a": "open", "b": "hidden", "diff": None, "ci95": None, "p_value": None, "test": None, "n_paired": 0}
    ]
    assert doc["tasks"]["mc"]["pairwise"][0]["diff"] == pytest.approx(1 / 3)
    assert (
        "task 'secret': no scored sample in hidden (hidden answers?): score null, no test" in doc["warnings"]
    )
    assert (
        "| hidden | 1.0000 | 1.0000 |  |" in (tmp_path / "cmp" / "tables" / "leaderboard.md").read_text()
    )  # mean over scored tasks


def test_flipped_responses_with_urls_leave_no_remote_src_or_href_in_the_page(tmp_path: Path) -> None:
    a = _run(tmp_path, "a", {"mc": [1, 1]})
    b = _run(tmp_path, "b", {"mc": [0, 0]})
    lines = [json.loads(x) for x in (b / "samples.jsonl").read_text().splitlines()]
    (b / "samples.jsonl").write_text(
        "".join(
            json.dumps({**r, "response": f"see href=http://x.example/{r['sample_id']}"}) + "\n" for r in lines
        )
    )
    html = (write_comparison(compare_runs([a, b]), tmp_path / "cmp")["html"]).read_text(encoding="utf-8")
    assert "see href=&#104;ttp://x.example/0" in html  # shown as text, spelled so no scanner reads a link
    assert not re.search(r"""(?:src|href)\s*=\s*["']?https?:""", html, re.IGNORECASE)


def test_partly_overlapping_runs_say_what_the_diff_and_the_test_are_over(tmp_path: Path) -> None:
    a = _run(tmp_path, "a", {"mc": [1, 0, 1, 1]})
    b = _run(tmp_path, "b", {"mc": [1, 1]})  # sample ids 0 and 1 only (e.g. run with --limit 2)
    doc = compare_runs([a, b])
    pair = doc["tasks"]["mc"]["pairwise"][0]
    assert pair["diff"] == pytest.approx(1.0 - 0.75) and pair["n_paired"] == 2
    assert doc["warnings"] == [
        "task 'mc': a and b share 2 of their 4 and 2 scored samples: diff compares the full task "
        "scores, ci95 and the test the shared samples"
    ]


def test_judge_failed_samples_are_left_out_of_the_pairs_not_counted_as_zero(tmp_path: Path) -> None:
    a = _run(tmp_path, "a", {"gen": [1, 1, 0, 1]})
    b = _run(tmp_path, "b", {"gen": [1, 0, 0, 1]})
    lines = [json.loads(x) for x in (b / "samples.jsonl").read_text().splitlines()]
    lines[1] = {
        **lines[1],
        "state": "judge_failed",
        "score": 0.0,
    }  # the judge gave no verdict: 0.0 is a placeholder
    (b / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    doc = compare_runs([a, b])
    pair = doc["tasks"]["gen"]["pairwise"][0]
    assert (
        pair["n_paired"] == 3 and pair["test"] == "mcnemar_exact" and pair["p_value"] == 1.0
    )  # no discordant pair left
    assert doc["warnings"] == [
        "task 'gen': 1 shared sample(s) judge_failed in a or b: left out of ci95 and the test (no verdict is "
        "not a 0)"
    ]
    assert [(f["sample_id"], f["b"]["state"]) for f in doc["flips"]["a → b"]["samples"]] == [
        ("1", "judge_failed")
    ]  # still a flip


def test_judge_failed_samples_with_a_plain_score_metric_stay_in_the_pairs(tmp_path: Path) -> None:
    a = _run(tmp_path, "a", {"gen": [1, 1, 0, 1]})
    b = _run(tmp_path, "b", {"gen": [1, 0, 0, 1]})
    for run in (a, b):  # the task's score is a plain metric each record keeps, judged on the side
        results = json.loads((run / "results.json").read_text())
        results["tasks"]["gen"]["score_metric"] = "numeric_match"
        (run / "results.json").write_text(json.dumps(results))
        lines = [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]
        lines = [{**r, "metrics": {"numeric_match": r["score"]}} for r in lines]
        if run == b:
            lines[1] = {**lines[1], "state": "judge_failed"}  # its numeric_match (0.0) is a real score
        (run / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    pair = compare_runs([a, b])["tasks"]["gen"]["pairwise"][0]
    assert pair["n_paired"] == 4 and pair["test"] == "mcnemar_exact"


def test_score_flips_and_state_changes_are_counted_apart(tmp_path: Path) -> None:
    a = _run(tmp_path, "a", {"mc": [1, 0, 0, 0]})
    b = _run(tmp_path, "b", {"mc": [0, 0, 0, 0]})
    lines = [json.loads(line) for line in (b / "samples.jsonl").read_text().splitlines()]
    for rec in lines[1:3]:  # two samples: ok 0 → parse_failed 0, a state change with no score change
        rec["state"] = "parse_failed"
    (b / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    doc = compare_runs([a, b])
    assert doc["flips"]["a → b"]["n_flipped"] == {"mc": 1}
    assert doc["flips"]["a → b"]["n_state_changed"] == {"mc": 2}
    assert sorted((f["sample_id"], f["change"]) for f in doc["flips"]["a → b"]["samples"]) == [
        ("0", "score"),
        ("1", "state"),
        ("2", "state"),
    ]
    write_comparison(doc, tmp_path / "cmp")
    assert "1 score flips, 2 state changes" in (tmp_path / "cmp" / "compare.html").read_text(encoding="utf-8")


def test_runs_over_different_task_sets_warn(tmp_path: Path) -> None:
    a = _run(tmp_path, "a", {"mc": [1, 0], "gen": [1.0]})
    b = _run(tmp_path, "b", {"mc": [1, 1]})
    doc = compare_runs([a, b])
    (warning,) = [w for w in doc["warnings"] if "different task sets" in w]
    assert "a also ran gen" in warning and "not comparable" in warning
    same = compare_runs([_run(tmp_path, "c", {"mc": [1, 0]}), _run(tmp_path, "d", {"mc": [0, 0]})])
    assert not [w for w in same["warnings"] if "task sets" in w]


def test_a_results_file_with_a_wrong_field_type_fails_naming_the_file(tmp_path: Path) -> None:
    """compare reads results.json through its model: a mistyped key fails at loading, naming the file and
    the field, not as a TypeError deep inside the statistics."""
    a = _run(tmp_path, "a", {"t": [1.0, 0.0]})
    b = _run(tmp_path, "b", {"t": [1.0, 1.0]})
    broken = json.loads((b / "results.json").read_text())
    broken["tasks"]["t"]["n"] = "two"
    (b / "results.json").write_text(json.dumps(broken))
    with pytest.raises(StoreError, match=r"(?s)b/results\.json: not a valid ResultsFile.*tasks\.t\.n"):
        compare_runs([a, b])
