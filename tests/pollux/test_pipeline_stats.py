"""Judge-versus-expert report and tables over the hand-worked miniature; reliability extras."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from omnieval.analysis.reliability import dawid_skene, krippendorff_alpha
from omnieval.benchmarks.pollux.pipeline import evaluate
from omnieval.benchmarks.pollux.stats import self_family_bias
from omnieval.benchmarks.pollux.tables import Table


def test_judge_report_hand_worked(mini: dict[str, Path], tmp_path: Path) -> None:
    result = evaluate(
        items_path=mini["items"],
        annotations_path=mini["annotations"],
        judge_paths={"j": mini["judge"]},
        out_dir=tmp_path / "out",
    )
    audit = result["judges"]["j"]["audit"]
    assert audit["states"] == {"scored": 5, "judge_failed": 1, "rejected": 1}
    assert audit["reasons"]["score 5 outside the criterion scale 0..2"] == 1
    overall = result["judges"]["j"]["report"]["overall"]["all"]
    # judged: critical_format (mode 0, j 0), literacy (no mode), initiative (no mode),
    # operability (mode 1, j 0), correctness (mode 2, j 2) → MAE 1/3 over three items
    assert overall["n_items"] == 5 and overall["n_excluded_no_mode"] == 2 and overall["n_not_judged"] == 1
    assert overall["mae"] == pytest.approx(1 / 3)
    assert overall["expert_vc"] == pytest.approx((1 + 0.5 + 0.5 + 1 + 1) / 5)
    by_model = result["judges"]["j"]["report"]["model"]
    assert set(by_model) == {"m1"}
    conf = result["judges"]["j"]["report"]["confusion"]["technical"]
    assert conf["matrix"][1][0] == 1 and conf["matrix"][2][2] == 1
    md = (tmp_path / "out" / "tables.md").read_text(encoding="utf-8")
    assert "Table 1: mean expert score by task type" in md and "mae by model" in md
    assert (tmp_path / "out" / "table_01.csv").exists() and (tmp_path / "out" / "pollux_report.json").exists()
    page = (tmp_path / "out" / "pollux_report.html").read_text(encoding="utf-8")
    assert "Confusion matrices: j" in page and "<h4>technical</h4>" in page and "mae by split" in page
    assert "spearman by model, standard split" in md
    table10 = json.loads((tmp_path / "out" / "table_03.json").read_text(encoding="utf-8"))
    assert table10["title"].startswith("Table 10") and table10["columns"] == ["Experts", "j"]
    m1 = next(r for r in table10["rows"] if r["model"] == "m1")
    # experts: mean of per-triple means (0, 1.5, 5/3, 0.5, 1, 2); judge: mean of its 5 scores (0, 1, 1, 0, 2)
    assert m1["Experts"] == pytest.approx((0 + 1.5 + 5 / 3 + 0.5 + 1 + 2) / 6) and m1["j"] == pytest.approx(
        0.8
    )
    vc = json.loads((tmp_path / "out" / "table_05.json").read_text(encoding="utf-8"))
    assert vc["title"] == "judge_vc by model" and vc["columns"] == ["Experts", "j"]
    # inter-expert VC over the six cleaned triples: 1, 1/2, 2/3, 1/2, 1, 1
    assert vc["rows"][0]["Experts"] == pytest.approx((1 + 0.5 + 2 / 3 + 0.5 + 1 + 1) / 6)


def test_tables_show_a_dash_for_cells_not_evaluated(mini: dict[str, Path], tmp_path: Path) -> None:
    evaluate(
        items_path=mini["items"],
        annotations_path=mini["annotations"],
        out_dir=tmp_path / "o",
        critical_scope="triple",
    )
    table = json.loads((tmp_path / "o" / "table_01.json").read_text(encoding="utf-8"))
    code = next(r for r in table["rows"] if r["task_type"] == "Code creation")
    assert code["m2"] is None  # m2 never answered a code item
    csv_text = (tmp_path / "o" / "table_01.csv").read_text(encoding="utf-8")
    assert "Code creation," in csv_text and "—" in csv_text


def test_table_exports() -> None:
    table = Table("T", "model", ("a", "Avg."), ("j1", "j2"), {("a", "j1"): 0.5, ("Avg.", "j1"): 0.25})
    assert table.to_markdown().splitlines()[2:] == [
        "| model | j1 | j2 |",
        "|---|---|---|",
        "| a | 0.500 | — |",
        "| Avg. | 0.250 | — |",
    ]
    assert table.to_csv().splitlines()[1] == "a,0.500,—"


def test_self_family_bias() -> None:
    report = {
        "model": {
            "o1": {"mean_bias": 0.4, "n_items": 10},
            "gpt-4o": {"mean_bias": 0.2, "n_items": 10},
            "llama": {"mean_bias": 0.1, "n_items": 20},
        }
    }
    out = self_family_bias(report, family_models=["o1", "gpt-4o"])
    assert out["own_family_bias"] == pytest.approx(0.3) and out["self_family_gap"] == pytest.approx(0.2)


def test_krippendorff_alpha_hand_worked() -> None:
    # nominal α, two raters, units (0,0), (1,1), (0,1): Do = 2/6... worked: pairable values n=6,
    # coincidences o00=2, o11=2, o01=o10=1; n0=n1=3 → Do=(1+1)/6, De=2*3*3/(6*5) → α = 1 - (2/6)/(18/30) = 4/9
    units = {"u1": {"a": 0, "b": 0}, "u2": {"a": 1, "b": 1}, "u3": {"a": 0, "b": 1}}
    assert krippendorff_alpha(units, level="nominal") == pytest.approx(4 / 9)
    assert krippendorff_alpha({"u": {"a": 1}}) is None


def test_dawid_skene_recovers_the_reliable_rater() -> None:
    truth = [0, 1, 2] * 6
    units = {}
    for i, t in enumerate(truth):
        noisy = (t + 1) % 3 if i % 2 else t  # rater c is wrong half the time
        units[i] = {"a": t, "b": t, "c": noisy}
    out = dawid_skene(units, labels=[0, 1, 2])
    assert [out["estimate"][i] for i in range(len(truth))] == truth
    assert out["rater_accuracy"]["a"] > 0.9 > out["rater_accuracy"]["c"]


def test_cli_evaluate(mini: dict[str, Path], tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "pollux",
            "evaluate",
            "--items",
            str(mini["items"]),
            "--annotations",
            str(mini["annotations"]),
            "--judge",
            f"j={mini['judge']}",
            "--out",
            str(tmp_path / "r"),
            "--family",
            "j=m1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["import"]["rejected"]["unknown item_id"] == 1
    assert summary["judges"]["j"]["overall"]["mae"] == pytest.approx(1 / 3)
    family = summary["judges"]["j"]["self_family"]  # only m1 evaluated: no other family to compare with
    assert family["own_family_bias"] == pytest.approx(summary["judges"]["j"]["overall"]["mean_bias"])
    assert family["self_family_gap"] is None


def _mixed_language_judge(path: Path) -> Path:
    from .conftest import write_jsonl

    return write_jsonl(
        path,
        [
            {
                "item_id": "i1",
                "model": "m1",
                "criterion": "speech_errors",
                "raw_output": "[FEEDBACK] Two speech errors here. [RESULT] 0 [END]",
            },
            {
                "item_id": "i1",
                "model": "m1",
                "criterion": "literacy",
                "raw_output": "[FEEDBACK] Одна ошибка в запятой. [RESULT] 1 [END]",
            },
            {
                "item_id": "i1",
                "model": "m1",
                "criterion": "initiative",
                "raw_output": "[FEEDBACK] Плохо. [RESULT] 0 [END]",
            },
        ],
    )


def test_judge_feedback_in_the_wrong_language_is_judge_failed(mini: dict[str, Path], tmp_path: Path) -> None:
    judge = _mixed_language_judge(tmp_path / "j.jsonl")
    default = evaluate(
        items_path=mini["items"], annotations_path=mini["annotations"], judge_paths={"j": judge}
    )
    assert default["judges"]["j"]["audit"]["states"] == {
        "scored": 2,
        "judge_failed": 1,
    }  # never silently scored
    assert default["judges"]["j"]["audit"]["reasons"] == {"feedback: rationale is not in Russian": 1}
    strict = evaluate(
        items_path=mini["items"],
        annotations_path=mini["annotations"],
        judge_paths={"j": judge},
        check_feedback=True,
    )  # adds App. B's one-word rule
    assert strict["judges"]["j"]["audit"]["states"] == {"scored": 1, "judge_failed": 2}
    assert strict["judges"]["j"]["audit"]["reasons"] == {
        "feedback: rationale is not in Russian": 1,
        "feedback: one-word rationale for a non-perfect score": 1,
    }


def test_cli_no_language_check_scores_feedback_in_any_language(mini: dict[str, Path], tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from omnieval.benchmarks.pollux.cli import app

    judge = _mixed_language_judge(tmp_path / "j.jsonl")
    args = [
        "evaluate",
        "--items",
        str(mini["items"]),
        "--annotations",
        str(mini["annotations"]),
        "--judge",
        f"j={judge}",
    ]
    states = {}
    for flag in ([], ["--no-language-check"], ["--no-language-check", "--check-feedback"]):
        result = CliRunner().invoke(app, [*args, *flag])
        assert result.exit_code == 0, result.output
        states[" ".join(flag)] = json.loads(result.stdout)["judges"]["j"]["audit"]["states"]
    assert states[""] == {"scored": 2, "judge_failed": 1}  # the English feedback: judge_failed by default
    assert states["--no-language-check"] == {"scored": 3}  # turned off: the English verdict is scored
    # App. B's rule (--check-feedback) is itself "Russian, >=2 words": it still fails the English and one-word
    # ones
    assert states["--no-language-check --check-feedback"] == {"scored": 1, "judge_failed": 2}
