"""Items import and composition; expert-annotation import, cleaning audit and aggregation, by hand."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from omnieval.benchmarks.pollux.annotations import aggregate, clean, import_annotations
from omnieval.benchmarks.pollux.items import composition, expected_levels, load_items
from omnieval.benchmarks.pollux.taxonomy import criteria_taxonomy, task_taxonomy
from omnieval.errors import SourceError

from .conftest import ITEMS, write_jsonl


def variants() -> dict:  # type: ignore[type-arg]
    return {v.id: v for v in criteria_taxonomy().variants}


def test_items_from_jsonl_csv_and_parquet(tmp_path: Path, mini: dict[str, Path]) -> None:
    items = load_items(mini["items"])
    assert [i.id for i in items] == ["i1", "i2"] and items[1].task_subtype == "Python"
    assert items[0].split == "standard" and items[0].reference_answer is None
    with (tmp_path / "items.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(
            fh, fieldnames=["id", "instruction", "problem_type", "complexity", "ethics_flag"]
        )
        writer.writeheader()
        writer.writerow(
            {
                "id": 7,
                "instruction": "Стилизуй текст",
                "problem_type": "Style transfer",
                "complexity": "hard",
                "ethics_flag": "true",
            }
        )
    (item,) = load_items(tmp_path / "items.csv")
    assert item.id == "7" and item.split == "zero_shot" and item.ethics_flag is True
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist([{k: v for k, v in ITEMS[0].items()}]), tmp_path / "items.parquet")
    assert load_items(tmp_path / "items.parquet")[0].task_type == "Editing"


@pytest.mark.parametrize(
    ("row", "needle"),
    [
        (
            {"id": "x", "instruction": "...", "task_type": "Cooking", "complexity": "easy"},
            "unknown POLLUX task type",
        ),
        (
            {"id": "x", "instruction": "...", "task_type": "STEM exercises", "complexity": "easy"},
            "field 'complexity'",
        ),
        ({"id": "x", "task_type": "Editing", "complexity": "easy"}, "field 'instruction'"),
        (
            {
                "id": "x",
                "instruction": "...",
                "task_type": "Extract",
                "task_subtype": "Poems",
                "complexity": "easy",
            },
            "has no subtype",
        ),
    ],
)
def test_bad_items_name_file_item_and_field(tmp_path: Path, row: dict, needle: str) -> None:  # type: ignore[type-arg]
    path = write_jsonl(tmp_path / "bad.jsonl", [row])
    with pytest.raises(SourceError, match=needle) as info:
        load_items(path)
    assert "bad.jsonl" in str(info.value) and "'x'" in str(info.value)


def test_duplicate_item_ids_are_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="duplicate item id"):
        load_items(write_jsonl(tmp_path / "d.jsonl", [ITEMS[0], ITEMS[0]]))


def test_composition_plan_adds_up_to_2100() -> None:
    assert expected_levels("Editing") == {"easy": 10, "medium": 15, "hard": 25}
    assert expected_levels("STEM exercises") == {"high_school": 60, "college": 65}  # 5 × 12/13
    assert expected_levels("Code creation") == {"easy": 40, "medium": 45, "hard": 40}  # 5 × 8/9/8
    assert expected_levels("Data analysis") == {"high_school": 50, "college": 50}
    assert sum(sum(expected_levels(t.name).values()) for t in task_taxonomy().task_types) == 2100


def test_composition_counts_and_deviations(mini: dict[str, Path]) -> None:
    report = composition(load_items(mini["items"]))
    assert report["per_task"] == {"Code creation": {"easy": 1}, "Editing": {"easy": 1}}
    assert report["n_with_reference"] == 1 and len(report["missing_task_types"]) == 33
    assert report["mean_criteria"] == 17.0
    editing = [d for d in report["deviations"] if d["task_type"] == "Editing"]
    assert {"task_type": "Editing", "complexity": "easy", "expected": 10, "got": 1} in editing


def test_import_rejects_bad_rows_by_reason(mini: dict[str, Path]) -> None:
    items = {i.id: i for i in load_items(mini["items"])}
    estimates, audit = import_annotations(mini["annotations"], items)
    assert audit.n_rows == 24 and audit.n_accepted == 19 == len(estimates)
    assert dict(audit.rejected) == {
        "unknown item_id": 1,
        "criterion not in the item's criteria set": 1,
        "score outside the criterion's scale": 2,
        "NA where the criterion allows none": 1,
    }
    assert {e.criterion for e in estimates if e.item_id == "i1" and e.model == "m1"} >= {
        "literacy@universal",
        "repetitions@universal",
    }
    with pytest.raises(SourceError, match="unknown item_id"):
        import_annotations(mini["annotations"], items, strict=True)


def test_cleaning_audit_hand_worked(mini: dict[str, Path]) -> None:
    items = {i.id: i for i in load_items(mini["items"])}
    estimates, _ = import_annotations(mini["annotations"], items)
    _kept, steps = clean(estimates, variants())
    counts = [(s["step"], s["estimates"], s["triples"]) for s in steps]
    assert counts == [
        ("imported", 19, 9),
        ("invalid_rationale_removed", 18, 9),  # "Нет" for a non-perfect 0 on Initiative
        ("critical_violation_removed", 14, 7),  # the censor vote drops all of (i1, m2)
        ("single_annotation_removed", 13, 6),  # repetitions had one annotation
    ]
    assert steps[1]["reasons"] == {"one-word rationale for a non-perfect score": 1}
    _, by_triple = clean(estimates, variants(), critical_scope="triple")
    assert by_triple[2]["estimates"] == 16 and by_triple[2]["flagged"] == 1


def test_aggregation_mean_mode_vc(mini: dict[str, Path]) -> None:
    items = {i.id: i for i in load_items(mini["items"])}
    estimates, _ = import_annotations(mini["annotations"], items)
    kept, _ = clean(estimates, variants())
    samples, all_na = aggregate(kept, items, variants())
    got = {(s.item_id, s.criterion): (s.mean, s.mode, s.vc, s.n_na) for s in samples}
    assert all_na == 0 and len(samples) == 6
    assert got[("i1", "literacy@universal")] == (1.5, None, 0.5, 0)
    assert got[("i1", "speech_errors@universal")] == pytest.approx((5 / 3, 2.0, 2 / 3, 0))
    assert got[("i1", "initiative@universal")] == (0.5, None, 0.5, 0)
    assert got[("i2", "correctness_results@task5")] == (2.0, 2.0, 1.0, 1)  # the NA mark counted, not scored
    assert {s.macrogroup for s in samples} == {"text_transformation", "technical"}


def test_pollux_importer_makes_judged_generation_samples(mini: dict[str, Path]) -> None:
    from omnieval.benchmarks.pollux.judging import NO_GOLD
    from omnieval.sources import importers

    (task,) = importers.get("pollux")(str(mini["items"]))
    samples = list(task.iter_samples())
    assert [s.id for s in samples] == ["i1", "i2"] and samples[0].targets == (NO_GOLD,)
    assert task.spec.judge is not None and task.spec.judge.protocol.name == "pollux_criteria"
    assert task.spec.judge.template == "pollux_ru@1" and task.spec.metrics[0].name == "pollux_answered"
    (en,) = importers.get("pollux")(f"{mini['items']}?template=en&regression=1")
    assert en.spec.judge is not None and en.spec.judge.template == "pollux_en@1"
    assert en.spec.judge.parser.options["allow_real"] is True
    (seven,) = importers.get("pollux")(f"{mini['items']}?models=seven")
    assert [s.id for s in seven.iter_samples()] == ["i1"]  # Code creation was a three-model task
    assert samples[1].fields["reference_answer"] == "def f(): ..."
    assert samples[1].metadata["pollux"]["task_type"] == "Code creation"


def test_cli_composition(mini: dict[str, Path]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "omnieval", "pollux", "composition", str(mini["items"])],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["n_items"] == 2


def test_annotations_from_csv_with_dash_na_and_panel(mini: dict[str, Path], tmp_path: Path) -> None:
    items = {i.id: i for i in load_items(mini["items"])}
    path = tmp_path / "ann.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["item_id", "model", "criterion", "annotator", "panel", "score", "rationale"])
        writer.writerow(["i2", "m1", "Correctness of results", "e1", "9", "-", "Нет эталона для сверки"])
        writer.writerow(["i2", "m1", "Correctness of results", "e2", "9", "2", "Результат верный"])
        writer.writerow(["i2", "m1", "Operability", "e1", "", "-", "Не запускал"])  # task criteria allow NA
        writer.writerow(["i2", "m1", "Initiative", "e1", "", "-", "Нет вопросов"])  # General: NA not allowed
    estimates, audit = import_annotations(path, items)
    assert audit.n_accepted == 3 and dict(audit.rejected) == {"NA where the criterion allows none": 1}
    na = [e for e in estimates if e.score is None]
    assert len(na) == 2 and estimates[0].panel == "9" and estimates[2].panel is None


def test_unknown_criterion_is_told_apart_from_one_outside_the_set(
    mini: dict[str, Path], tmp_path: Path
) -> None:
    from omnieval.benchmarks.pollux.pipeline import load_judge_scores

    from .conftest import rows, write_jsonl

    items = {i.id: i for i in load_items(mini["items"])}
    path = write_jsonl(
        tmp_path / "ann.jsonl",
        rows(
            [
                ("i1", "m1", "Frobnication", "a1", 2, "Всё хорошо"),  # names no POLLUX criterion
                ("i1", "m1", "Rhyme quality", "a1", 2, "Рифма хорошая"),  # real, but not an Editing criterion
                ("i1", "m1", "literacy", "a1", 2, "Ошибок нет"),
            ]
        ),
    )
    estimates, audit = import_annotations(path, items)
    assert len(estimates) == 1 and dict(audit.rejected) == {
        "unknown criterion": 1,
        "criterion not in the item's criteria set": 1,
    }
    assert audit.examples["unknown criterion"] == ["ann.jsonl row 1"]
    with pytest.raises(SourceError, match="row 1: unknown criterion") as info:
        import_annotations(path, items, strict=True)
    assert "field 'criterion'" in str(info.value) and "'i1'" in str(info.value)
    judge = write_jsonl(
        tmp_path / "judge.jsonl",
        [
            {"item_id": "i1", "model": "m1", "criterion": c, "score": 1}
            for c in ("Frobnication", "Rhyme quality", "literacy")
        ],
    )
    scores, judge_audit = load_judge_scores(judge, items)
    assert len(scores) == 1 and judge_audit["states"] == {"rejected": 2, "scored": 1}
    assert judge_audit["reasons"] == {"unknown criterion": 1, "criterion not in the item's criteria set": 1}
