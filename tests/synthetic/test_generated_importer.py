"""``--tasks generated:DIR``: tasks per manifest ``task``, metric per answer type, oracle 1.0, bad input
named."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import omnieval.benchmarks  # noqa: F401  (registers the suites and the importer)
from omnieval.errors import SourceError, TaskFileError
from omnieval.metrics import metrics
from omnieval.registry import load_plugins, plugin_failures
from omnieval.sources.importers import importers
from omnieval.sources.plugins import generators
from omnieval.types import ScoringInput


def _write(folder: Path, rows: list[dict[str, object]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return folder


def _oracle_results(specs: list[str], tmp_path: Path) -> dict[str, Any]:
    """``omnieval run --tasks SPECS --model baseline/oracle`` in a subprocess: results.json's tasks."""
    out = tmp_path / "run"
    env = {**os.environ, "OMNIEVAL_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            ",".join(specs),
            "--model",
            "baseline/oracle",
            "--output",
            str(out),
            "-q",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads((out / "results.json").read_text(encoding="utf-8"))["tasks"])


def test_oracle_scores_one_on_every_suite(tmp_path: Path) -> None:
    specs = []
    for suite in ("shapes", "charts", "tables", "text", "clocks", "math", "video-motion"):
        generators.get(suite)(tmp_path / suite, seed=21, n=12)
        specs.append(f"generated:{tmp_path / suite}")
    results = _oracle_results(specs, tmp_path)
    assert sum(info["n"] for info in results.values()) == 7 * 12
    assert {name: info["score"] for name, info in results.items()} == dict.fromkeys(results, 1.0)
    assert {"clocks_time", "video_direction", "text_latin", "math_algebra", "shapes_colour"} <= set(results)


def test_metric_and_parser_follow_the_answer_type(tmp_path: Path) -> None:
    generators.get("clocks")(tmp_path / "c", n=2)
    generators.get("tables")(tmp_path / "t", n=18)
    [clock] = importers.get("generated")(str(tmp_path / "c"))
    assert clock.spec.metrics[0].name == "clock_time_match" and clock.spec.modalities == ("image",)
    tables = {t.name: t for t in importers.get("generated")(str(tmp_path / "t" / "manifest.jsonl"))}
    assert tables["tables_sum"].spec.metrics[0].name == "numeric_match"
    assert tables["tables_argmax"].spec.metrics[0].name == "exact_match"
    sample = next(iter(tables["tables_lookup"].iter_samples()))
    assert sample.media[0].kind == "image" and Path(sample.media[0].path or "").is_file()
    assert sample.metadata["difficulty"] in ("easy", "medium", "hard")


def test_video_tasks_sample_every_frame_needed_for_event_seconds(tmp_path: Path) -> None:
    generators.get("video-motion")(tmp_path / "v", n=1, fps=4, seconds=5)
    [task] = importers.get("generated")(str(tmp_path / "v"))
    assert task.spec.media.video_fps == 4 and task.spec.media.video_max_frames == 20


def test_clock_time_metric() -> None:
    fn = metrics.get("clock_time_match").fn
    score = lambda text, gold: fn(ScoringInput(response=text, prediction=text, targets=(gold,)))  # noqa: E731
    assert score("Ответ: 3:05", "3:05") == 1.0
    assert score("15:05", "3:05") == 1.0  # an analogue clock has no AM/PM
    assert score("03.05", "3:05") == 1.0
    assert score("3:50", "3:05") == 0.0 and score("about three", "3:05") == 0.0
    assert score("12:00", "12:00") == 1.0 and score("0:00", "12:00") == 1.0


def test_rows_are_checked_before_any_task_is_made(tmp_path: Path) -> None:
    good = {"id": "a", "task": "t", "question": "q", "answer": "1"}
    load = importers.get("generated")
    with pytest.raises(SourceError, match=r"field 'image'.*not found"):
        load(str(_write(tmp_path / "m1", [{**good, "image": "missing.png"}])))
    with pytest.raises(SourceError, match=r"sample 'b'.*field 'answer'"):
        load(str(_write(tmp_path / "m2", [good, {**good, "id": "b", "answer": ""}])))
    with pytest.raises(SourceError, match="unknown answer_type"):
        load(str(_write(tmp_path / "m3", [{**good, "answer_type": "colour"}])))
    with pytest.raises(SourceError, match="mixes answer types"):
        load(str(_write(tmp_path / "m4", [good, {**good, "id": "b", "answer": "red"}])))
    with pytest.raises(SourceError, match="duplicate id"):
        load(str(_write(tmp_path / "m5", [good, good])))
    with pytest.raises(TaskFileError, match=r"no manifest.jsonl"):
        load(str(tmp_path / "nowhere"))


def _smallest_options(name: str) -> dict[str, object]:
    """Options for a tiny set from any registered generator (ART: one template per AA rule)."""
    if name == "art":
        return {"tasks": "AA", "per_template": 1, "workers": 1}
    return {"n": 3} if "n" in inspect.signature(generators.get(name)).parameters else {}


def test_every_registered_generator_writes_a_manifest_that_generated_dir_runs(tmp_path: Path) -> None:
    """``omnieval generate SUITE --output DIR`` then ``--tasks generated:DIR`` works for every generator
    the ``--list`` shows (the demo and MARKER demo ones included), and the oracle scores 1.0 on all.
    Every plugin is loaded first, so the generators checked do not depend on what earlier tests loaded."""
    load_plugins()
    assert not plugin_failures(), plugin_failures()  # a broken plugin would hide its generators
    specs, rows_total = [], 0
    for name in generators.names():
        folder = tmp_path / name
        generators.get(name)(folder, **_smallest_options(name))
        rows = [
            json.loads(line) for line in (folder / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        assert rows and all(r["id"] and r["task"] and r["question"] and r["answer"] for r in rows), name
        tasks = importers.get("generated")(str(folder))
        samples = [s for task in tasks for s in task.iter_samples()]
        assert [s.targets[0] for s in samples] == [r["answer"] for r in rows] or len(tasks) > 1, name
        assert sorted(str(s.targets[0]) for s in samples) == sorted(str(r["answer"]) for r in rows), name
        assert all(Path(m.path or "").is_file() for s in samples for m in s.media), name
        specs.append(f"generated:{folder}")
        rows_total += len(rows)
    assert {"demo.image", "demo.video", "marker_demo", "shapes", "video-motion"} <= set(generators.names())
    results = _oracle_results(specs, tmp_path)
    assert sum(info["n"] for info in results.values()) == rows_total
    assert {name: info["score"] for name, info in results.items()} == dict.fromkeys(results, 1.0)
