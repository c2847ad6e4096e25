"""Report building blocks: taxonomy discovery, safe embedding, exports, tolerant loading, viewer entries."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from omnieval.reports.charts import dimension_charts, task_score_chart
from omnieval.reports.embed import html_text, plotly_js, script_json
from omnieval.reports.loading import load_run
from omnieval.reports.tables import markdown_table, write_table
from omnieval.reports.taxonomy import (
    MAX_GROUPS,
    MAX_JUDGE_GROUPS,
    judge_dimensions,
    sample_dimensions,
    task_dimensions,
)
from omnieval.types.files import TaskResults

REMOTE = re.compile(r"""(?:src|href)\s*=\s*["']?https?:""", re.IGNORECASE)


def test_task_dimensions_found_generically_and_macro_averaged() -> None:
    tasks = {
        "a": {
            "score": 0.2,
            "modalities": ["text", "image"],
            "metadata": {"suite": {"skills": ["ocr", "count"]}, "licence": "CC-BY", "path": "/x/a"},
            "language": "ru",
        },
        "b": {
            "score": 0.6,
            "modalities": ["text", "audio"],
            "metadata": {"suite": {"skills": ["count"]}, "licence": "CC-BY", "path": "/x/b"},
            "language": "ru",
        },
        "c": {
            "score": 1.0,
            "modalities": ["text", "image"],
            "metadata": {"suite": {"skills": ["ocr"]}, "licence": "MIT", "path": "/x/c"},
            "language": "en",
        },
    }
    typed = {name: TaskResults(**block, n=1, states={"ok": 1}) for name, block in tasks.items()}
    dims = {d["name"]: d for d in task_dimensions(typed)}
    assert set(dims) == {"suite.skills", "licence", "modalities", "language"}  # paths are not labels
    assert {g["value"]: g["score"] for g in dims["language"]["groups"]} == {
        "ru": pytest.approx(0.4),
        "en": 1.0,
    }
    skills = {g["value"]: (g["score"], g["n"]) for g in dims["suite.skills"]["groups"]}
    assert skills == {"count": (pytest.approx(0.4), 2), "ocr": (pytest.approx(0.6), 2)}
    modal = {g["value"]: g["score"] for g in dims["modalities"]["groups"]}
    assert (
        modal["image"] == pytest.approx(0.6)
        and modal["text"] == pytest.approx(0.6)
        and modal["audio"] == pytest.approx(0.6)
    )


def test_sample_dimensions_skip_ids_and_free_text() -> None:
    records = [
        {
            "task": "t",
            "sample_id": str(i),
            "score": float(i % 2),
            "variant": f"p{i % 3}",
            "metadata": {"difficulty": ["easy", "hard"][i % 2], "row_id": i * 1000, "question": f"q{i}"},
        }
        for i in range(12)
    ]
    dims = {d["name"]: d for d in sample_dimensions(records)}
    assert set(dims) == {
        "difficulty",
        "prompt variant",
    }  # row_id (large ints) and question (one per sample) dropped
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


def test_any_case_http_in_text_is_neither_a_remote_link_in_json_nor_in_html() -> None:
    text = "see src=HTTP://a.example or href=https://b.example <b>"
    assert json.loads(script_json(text)) == text and not REMOTE.search(script_json(text))
    html = str(html_text(text))
    assert (
        html == "see src=&#72;TTP://a.example or href=&#104;ttps://b.example &lt;b&gt;"
        and not REMOTE.search(html)
    )


def test_inlined_plotly_has_no_remote_src_or_href() -> None:
    js = plotly_js()
    assert len(js) > 1_000_000 and not REMOTE.search(js)


def test_the_plotly_bundle_is_plotly_s_own_read_without_importing_plotly() -> None:
    """``import plotly`` cost ≈ 45 ms of every report for a file path."""
    import subprocess
    import sys

    import plotly.offline

    from omnieval.reports.embed import _plotly_bundle

    assert _plotly_bundle() == plotly.offline.get_plotlyjs().encode("utf-8")
    code = "import sys; from omnieval.reports.embed import plotly_js_bytes; plotly_js_bytes(); "
    code += "print('plotly' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_compiled_page_templates_are_kept_between_processes(tmp_path: Path) -> None:
    """Compiling the report's template cost every run ≈ 30 ms; an unwritable cache folder is no error."""
    import jinja2

    from omnieval.reports.html import ASSETS, _TemplateCache

    def render(cache_dir: Path) -> None:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(ASSETS)), bytecode_cache=_TemplateCache(str(cache_dir))
        )
        env.get_template("report.html.jinja")

    cache = tmp_path / "templates"
    render(cache)
    (entry,) = cache.iterdir()
    assert entry.stat().st_size > 10_000  # the compiled code of the report page
    entry.write_bytes(b"not bytecode")  # a damaged entry is compiled again, not an error
    render(cache)
    assert entry.stat().st_size > 10_000
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    render(blocked / "templates")  # a cache folder that cannot be made: compiled as before


def test_streamed_report_is_the_rendered_page_byte_for_byte(synthetic_run: Path) -> None:
    """write_report streams the page and writes the plotly bundle itself, around jinja (the run's peak
    RSS): the file must be exactly the page render_page returns, bundle included, with no partial file
    left beside it."""
    from omnieval.reports.html import build_report, write_report

    rendered = build_report(load_run(synthetic_run))
    path = write_report(synthetic_run)
    written = path.read_bytes().decode("utf-8")
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")  # the minute it was generated
    assert stamp.sub("T", written) == stamp.sub("T", rendered)
    assert plotly_js() in written and "omnieval-plotly-bundle" not in written
    assert not [p.name for p in synthetic_run.iterdir() if p.name.endswith(".partial")]


def test_tables_export_markdown_csv_json(tmp_path: Path) -> None:
    rows = [{"task": "a|b", "score": 0.5}, {"task": "c", "score": None, "extra": [1, 2]}]
    paths = write_table(tmp_path, "t", rows, title="T")
    assert [p.suffix for p in paths] == [".md", ".csv", ".json"]
    assert "a\\|b" in markdown_table(rows) and "| 0.5000 |" in markdown_table(rows)
    with (tmp_path / "t.csv").open() as fh:
        assert list(csv.reader(fh)) == [
            ["task", "score", "extra"],
            ["a|b", "0.5000", ""],
            ["c", "", "[1, 2]"],
        ]
    assert json.loads((tmp_path / "t.json").read_text()) == rows
    assert (
        markdown_table([{"p": 2.384e-07, "q": 0.0, "r": 4.9e-05, "s": 5e-05}]).splitlines()[-1]
        == "| 2.38e-07 | 0.0000 | 4.9e-05 | 0.0001 |"
    )


def test_truncated_last_line_is_counted_not_fatal(synthetic_run: Path) -> None:
    with (synthetic_run / "samples.jsonl").open("a") as fh:
        fh.write('{"task": "task_0", "sample_id": "cut-by-kill", "sta')
    run = load_run(synthetic_run)
    assert run.unreadable_lines == 1 and len(run.records) == 600
    assert any("1 line(s) of samples.jsonl could not be read" in n for n in run.notes)


def test_results_rebuilt_from_records_when_missing(synthetic_run: Path) -> None:
    (synthetic_run / "results.json").unlink()
    run = load_run(synthetic_run)
    block = run.results.tasks["task_0"]
    scores = [r["score"] for r in run.records if r["task"] == "task_0"]
    assert block.score == pytest.approx(sum(scores) / len(scores)) and block.n == len(scores)
    assert block.states["judge_failed"] == sum(
        r["state"] == "judge_failed" for r in run.records if r["task"] == "task_0"
    )


def test_mera_skill_tree_levels_become_dimensions() -> None:
    from omnieval.benchmarks.mera.catalog import catalogue
    from omnieval.benchmarks.mera.taxonomy import skill_levels, skills

    tasks = {
        t.name: {
            "score": i / 10,
            "modalities": [t.modality],
            "metadata": {
                "skills": list(t.skills),
                "skill_levels": skill_levels(t.skills),
                "domain_field": None,
                "domains": [],
            },
        }
        for i, t in enumerate(catalogue().of_modality("image"))
    }
    typed = {name: TaskResults(**block, n=1, states={"ok": 1}) for name, block in tasks.items()}
    dims = {d["name"]: d for d in task_dimensions(typed)}
    assert {"skills", "skill_levels.L1", "skill_levels.L2"} <= set(
        dims
    )  # None and [] values do not hide a key
    top = {g["value"] for g in dims["skill_levels.L1"]["groups"]}
    assert top <= {s.path[0] for s in skills().values()} and len(top) >= 2


def _judged(task: str, sid: str, verdicts: dict[str, float | None]) -> dict[str, object]:
    calls = [{"label": label, "attempts": [], "verdict": v} for label, v in verdicts.items()]
    return {
        "task": task,
        "sample_id": sid,
        "score": 1.0,
        "judge": {"judge": "j", "key": "js", "calls": calls},
    }


def test_judge_call_labels_become_a_dimension_on_the_judge_scale() -> None:
    records = [
        _judged(
            "pollux",
            "i1",
            {"literacy@universal": 4.0, "operability@task1": 1.0, "initiative@universal": None},
        ),
        _judged(
            "pollux", "i2", {"literacy@universal": 2.0, "operability@task1": 0.0, "initiative@universal": 2.0}
        ),
        _judged("pollux", "i3", {"literacy@universal": 3.0, "initiative@universal": 0.0}),
        _judged("qa", "q1", {"answer": 1.0}),
        _judged("qa", "q2", {"answer": 0.0}),  # one label: nothing to break down
    ]
    (dim,) = judge_dimensions(records)
    assert dim["name"] == "judge verdict per call · pollux" and dim["level"] == "judge"
    groups = {g["value"]: (g["score"], g["n"]) for g in dim["groups"]}
    # raw means on the criterion's own scale; the failed call (None) is left out, not counted as 0
    assert groups == {
        "initiative@universal": (1.0, 2),
        "literacy@universal": (3.0, 3),
        "operability@task1": (0.5, 2),
    }
    bar, radar = dimension_charts(dim)
    assert bar["layout"]["xaxis"]["range"][1] == pytest.approx(3.0 * 1.02)  # not clipped to [0, 1]
    assert radar["layout"]["polar"]["radialaxis"]["range"] == [0, 3.0]


def test_long_labels_that_share_a_start_stay_distinct_bars() -> None:
    groups = [{"value": f"correctness_results@task{i}", "score": 0.1 * i, "n": 2} for i in (2, 5)]
    (bar,) = dimension_charts({"name": "d", "level": "sample", "groups": groups})
    labels = bar["data"][0]["y"]
    assert len(set(labels)) == 2 and all(len(label) <= 24 for label in labels)
    assert [c[1] for c in bar["data"][0]["customdata"]] == [
        "correctness_results@task2",
        "correctness_results@task5",
    ]


def test_a_task_with_hidden_answers_gets_no_bar_rather_than_zero() -> None:
    rows = [
        {"name": "open", "score": 0.4, "ci95": [0.3, 0.5], "scored": True},
        {"name": "hidden", "score": 0.0, "ci95": None, "scored": False},
    ]
    bars = task_score_chart(rows)["data"][0]
    assert bars["x"] == [0.4, None] and bars["error_x"]["array"] == [pytest.approx(0.1), 0]


def test_overall_score_has_a_task_stratified_ci_only_when_task_scores_are_sample_means(
    synthetic_run: Path,
) -> None:
    from omnieval.reports.html import write_report

    html = write_report(synthetic_run).read_text(encoding="utf-8")
    found = re.search(r'id="overall-ci">(\d\.\d{3})–(\d\.\d{3}) \(95 % CI, task-stratified bootstrap\)', html)
    overall = float(re.search(r'Overall score</div>\s*<div class="value">(\d\.\d{3})', html).group(1))  # type: ignore[union-attr]
    assert found and float(found.group(1)) < overall < float(found.group(2))
    results = json.loads((synthetic_run / "results.json").read_text())
    results["tasks"]["task_2"]["score"] += 0.01  # aggregated otherwise (e.g. circular): not a sample mean
    (synthetic_run / "results.json").write_text(json.dumps(results))
    html = write_report(synthetic_run).read_text(encoding="utf-8")
    assert (
        'id="overall-ci">no CI: the score of task task_2 is not the mean of its samples\' scores<'
        in html.replace("&#39;", "'")
    )


def test_megabench_keyword_dimensions_from_imported_task_metadata(tmp_path: Path) -> None:
    from omnieval.benchmarks.megabench.importer import import_megabench

    info = (
        "{'field_score_function': {'answer': 'exact_str_match'}, 'aggregation': {'function': 'mean', "
        "'field_weights': {'answer': 1}}, 'response_parse_function': 'answer_string'}"
    )
    keywords = {
        "t0": ("Perception", "Photographs", ["Object Recognition and Classification"]),
        "t1": (
            "Knowledge",
            "Photographs",
            ["Object Recognition and Classification", "Text Recognition (OCR)"],
        ),
        "t2": ("Perception", "User Interface Screenshots", ["Planning and Decision Making"]),
    }
    rows = [
        {
            "id": f"{name}-{i}",
            "task_name": name,
            "task_description": "Pick.",
            "global_media": "[]",
            "example_text": "",
            "example_media": "[]",
            "query_text": "Q?",
            "query_media": "[]",
            "answer": "{'answer': 'A'}",
            "metric_info": info,
            "eval_context": "{}",
        }
        for name in keywords
        for i in range(2)
    ]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    meta = {
        name: {"app": app, "input_format": fmt, "output_format": "exact_text", "skills": skills}
        for name, (app, fmt, skills) in keywords.items()
    }
    (tmp_path / "all_task_meta.json").write_text(json.dumps(meta), encoding="utf-8")
    tasks = import_megabench(str(tmp_path / "rows.jsonl"))
    scores = {"t0": 0.2, "t1": 0.6, "t2": 1.0}
    dims = {
        d["name"]: d
        for d in task_dimensions(
            {
                t.name: TaskResults(score=scores[t.name], n=1, states={"ok": 1}, metadata=t.spec.metadata)
                for t in tasks
            }
        )
    }
    assert {"megabench.app", "megabench.input_format", "megabench.skills"} <= set(dims)
    skills = {g["value"]: (g["score"], g["n"]) for g in dims["megabench.skills"]["groups"]}
    assert skills["Object Recognition and Classification"] == (pytest.approx(0.4), 2)  # macro over t0 and t1
    assert skills["Text Recognition (OCR)"] == (0.6, 1)
    assert {g["value"]: g["score"] for g in dims["megabench.app"]["groups"]} == {
        "Knowledge": 0.6,
        "Perception": pytest.approx(0.6),
    }


def test_overall_ci_follows_a_judge_derived_score_that_leaves_judge_failed_samples_out(
    tmp_path: Path,
) -> None:
    from omnieval.reports.html import write_report

    run = tmp_path / "run"
    run.mkdir()
    rows = [
        ("a", "ok", 1.0),
        ("a", "ok", 0.0),
        ("a", "ok", 1.0),
        ("a", "judge_failed", 0.0),
        ("b", "ok", 0.0),
        ("b", "ok", 1.0),
    ]
    (run / "samples.jsonl").write_text(
        "".join(
            json.dumps({"task": t, "sample_id": str(i), "state": s, "score": v}) + "\n"
            for i, (t, s, v) in enumerate(rows)
        )
    )
    tasks = {
        "a": {"score": 2 / 3, "n": 4, "states": {"ok": 3, "judge_failed": 1}},
        "b": {"score": 0.5, "n": 2, "states": {"ok": 2}},
    }
    (run / "results.json").write_text(json.dumps({"model": "m", "tasks": tasks}))
    html = write_report(run).read_text(encoding="utf-8")
    found = re.search(r'id="overall-ci">(\d\.\d{3})–(\d\.\d{3}) \(95 % CI, task-stratified bootstrap\)', html)
    assert found and float(found.group(1)) < (2 / 3 + 0.5) / 2 < float(found.group(2))


def test_judge_labels_past_the_sample_group_limit_still_make_a_dimension() -> None:
    """POLLUX has 114 criterion variants: a task judged on more than MAX_GROUPS labels keeps its breakdown
    (up to MAX_JUDGE_GROUPS), never dropped while the labels are being counted."""
    labels = {f"criterion{i}@task": float(i % 3) for i in range(MAX_GROUPS + 10)}
    (dim,) = judge_dimensions([_judged("pollux", f"i{n}", labels) for n in range(2)])
    assert len(dim["groups"]) == MAX_GROUPS + 10 <= MAX_JUDGE_GROUPS
    too_many = {f"c{i}": 1.0 for i in range(MAX_JUDGE_GROUPS + 1)}
    assert judge_dimensions([_judged("pollux", f"i{n}", too_many) for n in range(2)]) == []
