"""A task file carrying a MEGA-Bench scoring spec: fields → metrics, weights, parser, eval context."""

from __future__ import annotations

import json
from pathlib import Path

from omnieval.runner.scoring import Scorer
from omnieval.sources.loader import load_task_file
from omnieval.types import Response

TASK = """
name: landmark_fields
source: {type: jsonl, path: rows.jsonl, fields: {input: question, targets: answer}}
parser:
  name: megabench
  options: {metric_info: {response_parse_function: json}}
metrics:
  - name: megabench.query_score
    alias: megabench_score
    options:
      metric_info:
        field_score_function: {name: exact_str_match_case_insensitive, year: general_single_numerical_match}
        aggregation: {function: mean, field_weights: {name: 2, year: 1}}
        response_parse_function: json
score: megabench_score
"""


def test_yaml_scoring_spec_scores_fields_with_weights(tmp_path: Path) -> None:
    row = {"id": "r1", "question": "Which landmark?", "answer": {"name": "Eiffel Tower", "year": "1889"}}
    (tmp_path / "rows.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    (tmp_path / "task.yaml").write_text(TASK, encoding="utf-8")
    task = load_task_file(tmp_path / "task.yaml")
    sample = next(task.iter_samples())
    scorer = Scorer.for_task(task.spec)
    # name right (weight 2); year 1950 is more than 1 % from 1889 (weight 1).
    result = scorer.score(sample, Response.from_text('{"name": "eiffel tower", "year": 1950}'))
    assert result.state == "ok"
    assert result.score == (2 * 1 + 1 * 0) / 3
    close = scorer.score(sample, Response.from_text('{"name": "x", "year": 1900}'))  # 11 < 18.89 (1 %)
    assert close.score == 1 / 3
    assert result.metrics["megabench.name"] == 1.0 and result.metrics["megabench.year"] == 0.0
