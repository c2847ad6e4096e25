"""Analyses and re-rendering as a user runs them: ``omnieval report``, ``omnieval analyze ...``,
``omnieval marker simplicity --output``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from omnieval.reports.sidecar import read_part
from omnieval.testing.runs import write_synthetic_run


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "omnieval", *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_report_rerenders_from_stored_records_with_prompts(tmp_path: Path) -> None:
    rows = [
        {
            "id": str(i),
            "question": f"Сколько будет {i}+{i}?",
            "answer": str(2 * i),
            "level": ["easy", "hard"][i % 2],
        }
        for i in range(8)
    ]
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "run"
    proc = _cli(
        "run", "--tasks", f"jsonl:{data}", "--model", "baseline/oracle", "--output", str(out), "--quiet"
    )
    assert proc.returncode == 0, proc.stderr
    for generated in ("report.html", "report_samples/index.js"):
        (out / generated).unlink()
    proc = _cli("report", str(out))
    assert proc.returncode == 0, proc.stderr
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "level" in html  # the sample-level taxonomy found in the dataset's columns
    part = read_part(out / "report_samples" / "c00000.js")
    assert any(
        "Сколько будет 3+3?" in p for p in part["added"]["prompt"]
    )  # prompts rebuilt from the task data
    tasks_md = (out / "report_tables" / "tasks.md").read_text(encoding="utf-8")
    assert "| qa | 1.0000 |" in tasks_md


def test_report_of_a_directory_without_records_is_a_clear_error(tmp_path: Path) -> None:
    proc = _cli("report", str(tmp_path))
    assert proc.returncode == 2 and "no samples.jsonl" in proc.stderr
    proc = _cli("report", str(tmp_path / "missing"))
    assert (
        proc.returncode == 2
        and proc.stderr.strip() == f"omnieval: error: run folder {tmp_path / 'missing'} does not exist"
    )


def test_analyze_commands_write_tables_and_pages(tmp_path: Path) -> None:
    a = write_synthetic_run(tmp_path / "hf-run", n_samples=240, model="hf/tiny", skill=0.4, seed=1)
    b = write_synthetic_run(tmp_path / "vllm-run", n_samples=240, model="vllm/tiny", skill=0.4, seed=2)
    c = write_synthetic_run(tmp_path / "other-run", n_samples=240, model="vllm/other", skill=0.7, seed=3)
    out = tmp_path / "analysis"
    proc = _cli("analyze", "prompts", str(a), str(b), str(c), "--factor", "difficulty", "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    fits = json.loads((out / "prompt_sensitivity.json").read_text())["fits"]
    assert fits["task_0"]["formula"] == "metric ~ C(prompt) + C(model) + C(engine) + C(f_difficulty)"
    assert "rank-deficient" in fits["task_0"]["warning"]  # synthetic difficulty follows the prompt exactly
    assert "WARNING: task 'task_0'" in proc.stderr
    assert [p["prompt"] for p in fits["task_0"]["prompts"]] == ["p1", "p2"]
    assert (out / "tables" / "prompt_sensitivity_per_prompt.csv").exists()

    proc = _cli("analyze", "stability", str(a), "--sizes", "3,15", "--resamples", "500", "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    curve = json.loads((out / "stability.json").read_text())["curves"]["hf-run"]
    assert curve[0]["macro_std"] > curve[1]["macro_std"]  # more items per task, steadier score

    proc = _cli("analyze", "subsets", str(a), str(c), "--size", "100", "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    draws = json.loads((out / "subsets.json").read_text())["runs"]
    assert [d["draws"] for d in draws] == [100, 100] and all(d["min"] <= d["mean"] <= d["max"] for d in draws)
    proc = _cli("analyze", "subsets", str(a), "--size", "100000", "--output", str(out))
    assert proc.returncode == 2 and "subset size" in proc.stderr


def test_marker_simplicity_page_shows_hardest_and_easiest(tmp_path: Path) -> None:
    runs = []
    for m, values in {"m1": [1, 1, 0], "m2": [1, 0, 0]}.items():
        run = tmp_path / m
        run.mkdir()
        lines = [
            {
                "task": "t",
                "sample_id": f"q{i}",
                "state": "ok",
                "score": float(v),
                "response": f"{m}:{i}",
                "metadata": {},
            }
            for i, v in enumerate(values)
        ]
        (run / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
        runs.append(str(run))
    proc = _cli("marker", "simplicity", *runs, "--task", "t", "--top", "1", "--output", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "out" / "simplicity.json").read_text())
    assert [r["item"] for r in summary["hardest"]] == ["q2"] and [r["item"] for r in summary["easiest"]] == [
        "q0"
    ]
    assert summary["easiest"][0]["simplicity"] == pytest.approx(1.0)
    html = (tmp_path / "out" / "simplicity.html").read_text(encoding="utf-8")
    assert "Hardest 1" in html and "Easiest 1" in html and "m1:2" in html


def test_report_of_a_killed_run_says_what_it_could_not_read(tmp_path: Path) -> None:
    run = write_synthetic_run(tmp_path / "killed", n_samples=50, seed=4)
    (run / "results.json").unlink()  # killed before aggregation
    with (run / "samples.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"task": "task_1", "sample_id": "task_1-999", "state": "ok", "resp')
    proc = _cli("report", str(run))
    assert proc.returncode == 0, proc.stderr
    html = (run / "report.html").read_text(encoding="utf-8")
    assert "1 unreadable line in samples.jsonl" in html
    assert "no results.json (unfinished run?)" in html
    assert (run / "report_samples" / "index.js").read_text().count("task_1") == 1


def test_pollux_criteria_break_down_in_the_report_of_a_judged_run(tmp_path: Path) -> None:
    items = [
        {
            "id": "i1",
            "instruction": "Исправь ошибки в тексте: ...",
            "task_type": "Editing",
            "complexity": "easy",
        },
        {
            "id": "i2",
            "instruction": "Напиши функцию на Python ...",
            "task_type": "Code creation",
            "task_subtype": "Python",
            "complexity": "easy",
            "reference_answer": "def f(): ...",
        },
    ]
    files = {
        "items": items,
        "answers": [{"task": "pollux", "sample_id": i["id"], "response": f"Ответ {i['id']}."} for i in items],
        "judge": [
            {"task": "pollux", "sample_id": "i1", "response": "[FEEDBACK] Хорошо. [RESULT] 1 [END]"},
            {"task": "pollux", "sample_id": "i2", "response": "[FEEDBACK] Отлично. [RESULT] 2 [END]"},
        ],
    }
    for name, rows in files.items():
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    out = tmp_path / "run"
    proc = _cli(
        "run",
        "--tasks",
        f"pollux:{tmp_path / 'items.jsonl'}",
        "--model",
        f"replay/{tmp_path / 'answers.jsonl'}",
        "--judge",
        f"replay/{tmp_path / 'judge.jsonl'}",
        "--output",
        str(out),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    rows = json.loads((out / "report_tables" / "capabilities.json").read_text())
    judged = {r["group"]: (r["score"], r["n"]) for r in rows if r["level"] == "judge"}
    assert judged["literacy@universal"] == (1.5, 2)  # a universal criterion: verdicts 1 (i1) and 2 (i2)
    assert judged["operability@task1"] == (2.0, 1) and judged["functional_style@task1"] == (
        1.0,
        1,
    )  # task-specific
    assert "judge verdict per call · pollux" in (out / "report.html").read_text(encoding="utf-8")


def test_prompt_sensitivity_takes_a_sample_s_repeats_as_one_observation(tmp_path: Path) -> None:
    """The same run written with each record repeated twice (repeat 0 and 1, same scores) fits exactly as
    the run without repeats: K answers to one question are not K observations."""
    from omnieval.reports.analyses import prompt_sensitivity_analysis

    runs = [
        write_synthetic_run(tmp_path / name, n_samples=120, model=model, skill=skill, seed=seed)
        for name, model, skill, seed in (("a", "hf/tiny", 0.4, 1), ("b", "vllm/other", 0.7, 3))
    ]
    repeated = tmp_path / "a-repeated"
    shutil.copytree(runs[0], repeated)
    lines = (runs[0] / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    (repeated / "samples.jsonl").write_text(
        "".join(json.dumps(json.loads(x) | {"repeat": r}) + "\n" for x in lines for r in (0, 1)),
        encoding="utf-8",
    )
    _, plain = prompt_sensitivity_analysis(runs)
    _, with_repeats = prompt_sensitivity_analysis([repeated, runs[1]])
    assert with_repeats["fits"]["task_0"]["n_obs"] == plain["fits"]["task_0"]["n_obs"]
    assert with_repeats["fits"]["task_0"]["prompts"] == plain["fits"]["task_0"]["prompts"]
