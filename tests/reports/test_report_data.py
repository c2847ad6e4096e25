"""Report building blocks: taxonomy discovery, safe embedding, exports, tolerant loading, viewer entries."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from omnieval.reports.embed import plotly_js, script_json
from omnieval.reports.loading import load_run
from omnieval.reports.tables import markdown_table, write_table
from omnieval.reports.taxonomy import sample_dimensions, task_dimensions

REMOTE = re.compile(r"""(?:src|href)\s*=\s*["']?https?:""", re.IGNORECASE)


def test_task_dimensions_found_generically_and_macro_averaged() -> None:
    tasks = {
        "a": {"score": 0.2, "modalities": ["text", "image"], "metadata": {"suite": {"skills": ["ocr", "count"]}, "licence": "CC-BY", "path": "/x/a"}, "language": "ru"},
        "b": {"score": 0.6, "modalities": ["text", "audio"], "metadata": {"suite": {"skills": ["count"]}, "licence": "CC-BY", "path": "/x/b"}, "language": "ru"},
        "c": {"score": 1.0, "modalities": ["text", "image"], "metadata": {"suite": {"skills": ["ocr"]}, "licence": "MIT", "path": "/x/c"}, "language": "en"},
    }  # fmt: skip
    dims = {d["name"]: d for d in task_dimensions(tasks)}
    assert set(dims) == {"suite.skills", "licence", "modalities", "language"}  # paths are not labels
    assert {g["value"]: g["score"] for g in dims["language"]["groups"]} == {"ru": pytest.approx(0.4), "en": 1.0}
    skills = {g["value"]: (g["score"], g["n"]) for g in dims["suite.skills"]["groups"]}
    assert skills == {"count": (pytest.approx(0.4), 2), "ocr": (pytest.approx(0.6), 2)}
    modal = {g["value"]: g["score"] for g in dims["modalities"]["groups"]}
    assert modal["image"] == pytest.approx(0.6) and modal["text"] == pytest.approx(0.6) and modal["audio"] == pytest.approx(0.6)


def test_sample_dimensions_skip_ids_and_free_text() -> None:
    records = [
        {"task": "t", "sample_id": str(i), "score": float(i % 2), "variant": f"p{i % 3}",
         "metadata": {"difficulty": ["easy", "hard"][i % 2], "row_id": i * 1000, "question": f"q{i}"}}
        for i in range(12)
    ]  # fmt: skip
    dims = {d["name"]: d for d in sample_dimensions(records)}
    assert set(dims) == {"difficulty", "prompt variant"}  # row_id (large ints) and question (one per sample) dropped
    difficulty = {g["value"]: g["score"] for g in dims["difficulty"]["groups"]}
    assert difficulty == {"easy": 0.0, "hard": 1.0}
    levels = sample_dimensions([{"score": 1.0, "metadata": {"level": lv}} for lv in (10, 2, 2, 10, 1, 1)] * 2)
    assert [g["value"] for g in levels[0]["groups"]] == ["1", "2", "10"]  # numeric labels in numeric order


def test_sample_dimensions_keep_at_most_max_groups_labels() -> None:
    """A key is a dimension with up to MAX_GROUPS labels; one more label drops it for good (its later,
    repeated labels do not bring it back), whichever order the records come in."""
    from omnieval.reports.taxonomy import MAX_GROUPS

    def records(n_labels: int) -> list[dict]:
        return [{"score": 1.0, "metadata": {"k": f"v{i % n_labels}"}} for i in range(4 * MAX_GROUPS)]

    assert [d["name"] for d in sample_dimensions(records(MAX_GROUPS))] == ["k"]
    assert len(sample_dimensions(records(MAX_GROUPS))[0]["groups"]) == MAX_GROUPS
    assert sample_dimensions(records(MAX_GROUPS + 1)) == []
    early = records(MAX_GROUPS + 1)[: MAX_GROUPS + 1] + records(2)
    assert sample_dimensions(early) == []


def test_script_json_cannot_close_the_script_or_link_remote() -> None:
    text = script_json({"r": '</script><a href="http://evil.example">x</a>'})
    assert "</script" not in text and not REMOTE.search(text)
    assert json.loads(text) == {"r": '</script><a href="http://evil.example">x</a>'}


def test_inlined_plotly_has_no_remote_src_or_href() -> None:
    js = plotly_js()
    assert len(js) > 1_000_000 and not REMOTE.search(js)


def test_tables_export_markdown_csv_json(tmp_path: Path) -> None:
    rows = [{"task": "a|b", "score": 0.5}, {"task": "c", "score": None, "extra": [1, 2]}]
    paths = write_table(tmp_path, "t", rows, title="T")
    assert [p.suffix for p in paths] == [".md", ".csv", ".json"]
    assert "a\\|b" in markdown_table(rows) and "| 0.5000 |" in markdown_table(rows)
    with (tmp_path / "t.csv").open() as fh:
        assert list(csv.reader(fh)) == [["task", "score", "extra"], ["a|b", "0.5000", ""], ["c", "", "[1, 2]"]]
    assert json.loads((tmp_path / "t.json").read_text()) == rows


def test_truncated_last_line_is_counted_not_fatal(synthetic_run: Path) -> None:
    with (synthetic_run / "samples.jsonl").open("a") as fh:
        fh.write('{"task": "task_0", "sample_id": "cut-by-kill", "sta')
    run = load_run(synthetic_run)
    assert run.unreadable_lines == 1 and len(run.records) == 600
    assert any("1 line(s) of samples.jsonl could not be read" in n for n in run.notes)


def test_results_rebuilt_from_records_when_missing(synthetic_run: Path) -> None:
    (synthetic_run / "results.json").unlink()
    run = load_run(synthetic_run)
    block = run.results["tasks"]["task_0"]
    scores = [r["score"] for r in run.records if r["task"] == "task_0"]
    assert block["score"] == pytest.approx(sum(scores) / len(scores)) and block["n"] == len(scores)
    assert block["states"]["judge_failed"] == sum(r["state"] == "judge_failed" for r in run.records if r["task"] == "task_0")


def test_mera_skill_tree_levels_become_dimensions() -> None:
    from omnieval.benchmarks.mera.catalog import catalogue
    from omnieval.benchmarks.mera.taxonomy import skill_levels, skills

    tasks = {t.name: {"score": i / 10, "modalities": [t.modality],
                      "metadata": {"skills": list(t.skills), "skill_levels": skill_levels(t.skills), "domain_field": None, "domains": []}}
             for i, t in enumerate(catalogue().of_modality("image"))}  # fmt: skip
    dims = {d["name"]: d for d in task_dimensions(tasks)}
    assert {"skills", "skill_levels.L1", "skill_levels.L2"} <= set(dims)  # None and [] values do not hide a key
    top = {g["value"] for g in dims["skill_levels.L1"]["groups"]}
    assert top <= {s.path[0] for s in skills().values()} and len(top) >= 2
