"""``omnieval judge-agreement --human H --judge J --json`` on a hand-worked table, and its bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HUMAN = [  # item, criterion, annotator → score
    ("A", "c1", "a1", 2), ("A", "c1", "a2", 2), ("A", "c1", "a3", 1),            # mode 2, VC 2/3, mean 5/3
    ("B", "c1", "a1", 0), ("B", "c1", "a2", 1),                                  # no mode, VC 1/2, mean 1/2
    ("C", "c1", "a1", 1), ("C", "c1", "a2", 1), ("C", "c1", "a3", 1),            # mode 1, VC 1, mean 1
    ("D", "c2", "a1", 0), ("D", "c2", "a2", 0), ("D", "c2", "a3", 2), ("D", "c2", "a4", 2),
    ("D", "c2", "a5", 2),                                                        # mode 2, VC 3/5, mean 6/5
]  # fmt: skip
JUDGE = [("A", "c1", 1), ("B", "c1", 1), ("C", "c1", 1), ("D", "c2", 2)]


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def files(tmp_path: Path) -> tuple[Path, Path]:
    human = write(tmp_path / "human.jsonl",
                  [{"item_id": i, "criterion": c, "annotator": a, "score": s} for i, c, a, s in HUMAN])  # fmt: skip
    judge = write(tmp_path / "judge.jsonl", [{"item_id": i, "criterion": c, "score": s} for i, c, s in JUDGE])
    return human, judge


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omnieval", "judge-agreement", *args],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip


def test_fixed_interface_hand_worked(tmp_path: Path) -> None:
    human, judge = files(tmp_path)
    proc = cli("--human", str(human), "--judge", str(judge), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["n_items"] == 4 and out["n_excluded_no_mode"] == 1
    assert out["mae"] == pytest.approx(1 / 3)  # |1-2| + |1-1| + |2-2| over A, C, D
    assert out["expert_vc"] == pytest.approx((2 / 3 + 1 / 2 + 1 + 3 / 5) / 4)
    # expectation of the substitution: A 2/3, B 3/4, C 1, D 0.68
    assert out["judge_vc_expected"] == pytest.approx((2 / 3 + 3 / 4 + 1 + 0.68) / 4)
    assert out["judge_vc"] == pytest.approx(out["judge_vc_expected"], abs=0.04)
    assert out["spearman"] == pytest.approx(15**-0.5)
    again = json.loads(cli("--human", str(human), "--judge", str(judge), "--json").stdout)
    assert again["judge_vc"] == out["judge_vc"]  # seeded


def test_regression_reference_is_the_mean(tmp_path: Path) -> None:
    human, judge = files(tmp_path)
    out = json.loads(cli("--human", str(human), "--judge", str(judge), "--json", "--reference", "mean").stdout)
    assert out["mae"] == pytest.approx((2 / 3 + 0.5 + 0 + 0.8) / 4) and out["n_excluded_no_mode"] == 0


def test_unmatched_and_na_are_counted_not_scored(tmp_path: Path) -> None:
    human, judge = files(tmp_path)
    with human.open("a") as fh:
        fh.write(json.dumps({"item_id": "E", "criterion": "c1", "annotator": "a1", "score": 2}) + "\n")
        fh.write(json.dumps({"item_id": "A", "criterion": "c1", "annotator": "a9", "score": "NA"}) + "\n")
    with judge.open("a") as fh:
        fh.write(json.dumps({"item_id": "F", "criterion": "c1", "score": 0}) + "\n")
    out = json.loads(cli("--human", str(human), "--judge", str(judge), "--json").stdout)
    assert out["n_items"] == 4 and out["n_human_only"] == 1 and out["n_judge_only"] == 1
    assert out["n_human_na"] == 1 and out["mae"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("not json", "line 2 is not valid JSON"),
        ('{"item_id": "A", "criterion": "c1", "score": 1}', "field 'annotator'"),
        ('{"item_id": "A", "criterion": "c1", "annotator": "a1", "score": 2}', "scored this item twice"),
        ('{"item_id": "A", "criterion": "c1", "annotator": "z", "score": "good"}', "field 'score'"),
    ],
)
def test_bad_human_lines_name_file_line_and_field(tmp_path: Path, line: str, needle: str) -> None:
    human, judge = files(tmp_path)
    first = human.read_text().splitlines()[0]
    human.write_text(first + "\n" + line + "\n")
    proc = cli("--human", str(human), "--judge", str(judge), "--json")
    assert proc.returncode == 2 and needle in proc.stderr and str(human) in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_file_is_a_clean_error(tmp_path: Path) -> None:
    proc = cli("--human", str(tmp_path / "nope.jsonl"), "--judge", str(tmp_path / "j.jsonl"), "--json")
    assert proc.returncode == 2 and "not found" in proc.stderr
