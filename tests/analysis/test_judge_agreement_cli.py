"""``omnieval judge-agreement --human H --judge J --json`` on a hand-worked table, and its bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HUMAN = [  # item, criterion, annotator → score
    ("A", "c1", "a1", 2),
    ("A", "c1", "a2", 2),
    ("A", "c1", "a3", 1),  # mode 2, VC 2/3, mean 5/3
    ("B", "c1", "a1", 0),
    ("B", "c1", "a2", 1),  # no mode, VC 1/2, mean 1/2
    ("C", "c1", "a1", 1),
    ("C", "c1", "a2", 1),
    ("C", "c1", "a3", 1),  # mode 1, VC 1, mean 1
    ("D", "c2", "a1", 0),
    ("D", "c2", "a2", 0),
    ("D", "c2", "a3", 2),
    ("D", "c2", "a4", 2),
    ("D", "c2", "a5", 2),  # mode 2, VC 3/5, mean 6/5
]
JUDGE = [("A", "c1", 1), ("B", "c1", 1), ("C", "c1", 1), ("D", "c2", 2)]


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def files(tmp_path: Path) -> tuple[Path, Path]:
    human = write(
        tmp_path / "human.jsonl",
        [{"item_id": i, "criterion": c, "annotator": a, "score": s} for i, c, a, s in HUMAN],
    )
    judge = write(tmp_path / "judge.jsonl", [{"item_id": i, "criterion": c, "score": s} for i, c, s in JUDGE])
    return human, judge


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "omnieval", "judge-agreement", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


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
    out = json.loads(
        cli("--human", str(human), "--judge", str(judge), "--json", "--reference", "mean").stdout
    )
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


def test_matches_an_independent_computation(tmp_path: Path) -> None:
    """A random 200-item table: MAE, counts and VC by plain loops that re-count every trial, Spearman
    by scipy, judge VC replaying the documented seeding (items sorted, raters sorted, one generator)."""
    from collections import Counter

    import numpy as np
    from scipy.stats import spearmanr

    from omnieval.analysis import judge_agreement, load_agreement_files

    gen = np.random.default_rng(11)
    human_rows, judge_rows = [], []
    for i in range(200):
        item, crit = f"q{i:03d}", ["literacy", "initiative", "format"][i % 3]
        for a in range(int(gen.integers(2, 7))):
            human_rows.append(
                {"item_id": item, "criterion": crit, "annotator": f"r{a}", "score": int(gen.integers(0, 3))}
            )
        judge_rows.append({"item_id": item, "criterion": crit, "score": int(gen.integers(0, 3))})
    out = judge_agreement(
        load_agreement_files(
            write(tmp_path / "h.jsonl", human_rows), write(tmp_path / "j.jsonl", judge_rows)
        ),
        seed=5,
    )

    labels: dict[tuple[str, str], dict[str, int]] = {}
    for r in human_rows:
        labels.setdefault((r["item_id"], r["criterion"]), {})[r["annotator"]] = r["score"]
    judged = {(r["item_id"], r["criterion"]): r["score"] for r in judge_rows}
    rng = np.random.default_rng(5)
    errors, expert_vc, judge_vc, means, no_mode = [], [], [], [], 0
    for key in sorted(labels):
        scores = [labels[key][a] for a in sorted(labels[key])]
        top = Counter(scores).most_common()
        if len(top) > 1 and top[0][1] == top[1][1]:
            no_mode += 1
        else:
            errors.append(abs(judged[key] - top[0][0]))
        expert_vc.append(top[0][1] / len(scores))
        trials = []
        for pick in rng.integers(0, len(scores), size=100):
            swapped = list(scores)
            swapped[int(pick)] = judged[key]
            trials.append(Counter(swapped).most_common(1)[0][1] / len(swapped))
        judge_vc.append(sum(trials) / len(trials))
        means.append(sum(scores) / len(scores))
    assert out["n_items"] == 200 and out["n_excluded_no_mode"] == no_mode > 0
    assert out["mae"] == pytest.approx(sum(errors) / len(errors))
    assert out["expert_vc"] == pytest.approx(sum(expert_vc) / 200)
    assert out["judge_vc"] == pytest.approx(sum(judge_vc) / 200)
    expected_rho = spearmanr([judged[k] for k in sorted(labels)], means).statistic
    assert out["spearman"] == pytest.approx(float(expected_rho))
