"""``omnieval export eee``: the output validates against the vendored Every Eval Ever schemas (0.3.0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from omnieval.interchange.eee import SCHEMA_DIR
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config


def _schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


def test_eee_export_validates_and_carries_every_score(
    tmp_path: Path, qa_task: Path, replay_answers: Path
) -> None:
    run = tmp_path / "run"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{qa_task}",), model=f"replay/{replay_answers}", output=run, quiet=True)
    )
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    args = ["export", "eee", str(run), "--output", str(out), "--model-id", "org/model"]
    proc = subprocess.run(
        [sys.executable, "-m", "omnieval", *args], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stderr
    (aggregate_path,) = out.glob("data/omnieval/org/model/*.json")
    aggregate = json.loads(aggregate_path.read_text())
    jsonschema.Draft7Validator(_schema("eval.schema.json")).validate(aggregate)
    (result,) = aggregate["evaluation_results"]
    assert result["evaluation_name"] == "qa" and result["score_details"]["score"] == pytest.approx(0.7)
    ci = result["score_details"]["uncertainty"]["confidence_interval"]
    assert ci["lower"] <= 0.7 <= ci["upper"]
    detail = aggregate["detailed_evaluation_results"]
    samples = out / detail["file_path"]
    assert samples.exists() and detail["total_rows"] == 10
    instance_schema = jsonschema.Draft7Validator(_schema("instance_level_eval.schema.json"))
    lines = [json.loads(x) for x in samples.read_text().splitlines()]
    for line in lines:
        instance_schema.validate(line)
    by_id = {x["sample_id"]: x for x in lines}
    assert by_id["3"]["input"] == {"raw": "3+3=?", "reference": ["6"], "choices": None}
    assert by_id["3"]["evaluation"] == {"score": 1.0, "is_correct": True}
    assert by_id["8"]["output"]["raw"] == ["99"] and by_id["8"]["evaluation"]["is_correct"] is False
    assert {x["evaluation_id"] for x in lines} == {aggregate["evaluation_id"]}


def test_the_schema_rejects_what_it_should(tmp_path: Path) -> None:
    """The vendored schema is strict enough to catch a missing field (the validation above can fail)."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(_schema("eval.schema.json")).validate({"schema_version": "0.3.0"})


def test_each_repeat_is_a_line_that_names_its_repeat(tmp_path: Path, qa_task: Path) -> None:
    from omnieval.interchange.eee import write_eee

    run = tmp_path / "run"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{qa_task}",), model="baseline/random", output=run, repeats=2, quiet=True)
    )
    _, samples = write_eee(run, output=tmp_path / "out", model_id="org/model")
    lines = [json.loads(x) for x in samples.read_text().splitlines()]
    instance_schema = jsonschema.Draft7Validator(_schema("instance_level_eval.schema.json"))
    for line in lines:
        instance_schema.validate(line)
    pairs = sorted((x["sample_id"], x["metadata"]["repeat"]) for x in lines)
    assert pairs == sorted((str(i), str(r)) for i in range(10) for r in (0, 1))  # the schema: strings
