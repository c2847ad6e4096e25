"""A task's ``truncated`` rule: zero (engine default) or score_text (benchmark parity); state stays
truncated."""

from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.aggregate import compute_results
from omnieval.runner.scoring import Scorer
from omnieval.sources import Task
from omnieval.types import Response, Sample, TaskSpec

SAMPLES = [Sample(id=str(i), input=f"q{i}", targets=("Paris",)) for i in range(4)]
CUT = Response(text="Paris", finish_reason="length")


def _spec(**kw: object) -> TaskSpec:
    return TaskSpec.model_validate({"name": "t", "metrics": ["exact_match"], **kw})


def test_default_is_zero() -> None:
    spec = _spec()
    assert spec.truncated == "zero"
    result = Scorer.for_task(spec).score(SAMPLES[0], CUT)
    assert result.state == "truncated" and result.score == 0.0 and result.metrics == {"exact_match": 0.0}


def test_score_text_scores_what_came_back_and_keeps_the_state() -> None:
    scorer = Scorer.for_task(_spec(truncated="score_text"))
    right = scorer.score(SAMPLES[0], CUT)
    assert right.state == "truncated" and right.score == 1.0 and right.metrics == {"exact_match": 1.0}
    assert "score_text" in (right.reason or "")
    wrong = scorer.score(SAMPLES[1], Response(text="Lyon, or maybe", finish_reason="length"))
    assert wrong.state == "truncated" and wrong.score == 0.0


def test_results_report_the_rule_and_count_the_state() -> None:
    for rule, expected in (("zero", 0.5), ("score_text", 0.75)):
        spec = _spec(truncated=rule)
        scorer = Scorer.for_task(spec)
        responses = [
            Response.from_text("Paris"),
            CUT,
            Response.from_text("Paris"),
            Response.from_text("Rome"),
        ]
        records = [
            scorer.score(s, r).model_dump(mode="json") for s, r in zip(SAMPLES, responses, strict=True)
        ]
        block = compute_results([Task.from_samples(spec, SAMPLES)], records, model="m").tasks["t"]
        assert block.truncated_scoring == rule
        assert block.states["truncated"] == 1 and block.states["ok"] == 3
        assert block.score == pytest.approx(expected)


def test_task_file_key_is_validated(tmp_path: Path) -> None:
    from omnieval.errors import TaskFileError
    from omnieval.sources import load_task_file

    (tmp_path / "t.yaml").write_text("name: t\nsource: {type: jsonl, path: x.jsonl}\ntruncated: partial\n")
    with pytest.raises(TaskFileError, match="truncated"):
        load_task_file(tmp_path / "t.yaml")


def test_mera_tasks_score_text() -> None:  # MEGA-Bench: tests/megabench/test_importer.py
    from tests.mera.conftest import task_spec_of

    assert (
        task_spec_of("weird").truncated == "score_text" and task_spec_of("ruslun").truncated == "score_text"
    )
