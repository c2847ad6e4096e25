"""A MEGA-Bench run with an Open task judged through ``--judge replay/...``: hand-worked task scores,
judge_failed counted, the ASCII-art judge, and the import-time check of a broken judge config."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from omnieval.benchmarks.megabench.importer import import_megabench
from omnieval.benchmarks.megabench.scheme import megabench_board
from omnieval.errors import SourceError, TaskFileError

AGG = "'aggregation': {'function': 'mean', 'field_weights': {'answer': 1}}"
CRITERIA = "Compare the response with the reference.\\nReference: {ref}\\nResponse: {resp}\\nQuestion: {q}"
JUDGED = (
    "{'field_score_function': {'answer': 'gpt_4o_as_judge'}, "
    + AGG
    + ", 'response_parse_function': 'answer_string', "
    "'gpt4o_eval_configs': {'judge_model_type': 'text only', 'eval_criteria_prompt': '" + CRITERIA + "', "
    "'reference_type': 'r', 'template_mapping': {'ref': 'answers.answer', 'resp': 'model_output', 'q': "
    "'example_question'}}}"
)
ASCII = (
    "{'field_score_function': {'answer': 'ascii_art_gpt4o_judge'}, "
    + AGG
    + ", 'response_parse_function': 'ascii_answer_string'}"
)
CORE = (
    "{'field_score_function': {'answer': 'exact_str_match'}, "
    + AGG
    + ", 'response_parse_function': 'answer_string'}"
)


def _row(i: int, task: str, info: str, answer: str) -> dict[str, Any]:
    return {
        "id": i,
        "task_name": task,
        "task_description": "Do it.",
        "global_media": "[]",
        "example_text": "",
        "example_media": "[]",
        "query_text": f"Question {i}?",
        "query_media": "[]",
        "answer": repr({"answer": answer}),
        "metric_info": info,
        "eval_context": "{}",
    }


ROWS = [
    _row(1, "open_summary", JUDGED, "A dog catches a frisbee."),
    _row(2, "open_summary", JUDGED, "Two cats sleep."),
    _row(3, "open_summary", JUDGED, "A man runs."),
    _row(4, "ascii_cat", ASCII, " /\\_/\\\n( o.o )"),
    _row(5, "core_letter", CORE, "B"),
    _row(6, "core_letter", CORE, "C"),
]
RESPONSES = {
    1: "Answer: a dog plays",
    2: "Answer: cats",
    3: "Answer: ???",
    4: "Answer: =^.^=",
    5: "Answer: B",
    6: "Answer: A",
}
JUDGE = {
    1: "**Score explanation**: close but vague.\n**Score**: 7",
    2: "**Score**: 10\n**Score explanation**: matches the reference.",
    3: "I cannot rate this.",  # unparseable on every attempt: judge_failed, never a 0
    4: "Yes.",
}


def _lines(table: dict[int, str], task_of: dict[int, str]) -> str:
    return "".join(
        json.dumps({"task": task_of[i], "sample_id": str(i), "response": text}) + "\n"
        for i, text in table.items()
    )


def _run(tmp_path: Path, *, judge: bool) -> dict[str, Any]:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    task_of = {r["id"]: r["task_name"] for r in ROWS}
    (tmp_path / "responses.jsonl").write_text(_lines(RESPONSES, task_of), encoding="utf-8")
    (tmp_path / "judge.jsonl").write_text(_lines(JUDGE, task_of), encoding="utf-8")
    out = tmp_path / ("judged" if judge else "plain")
    cmd = [
        sys.executable,
        "-m",
        "omnieval",
        "run",
        "--tasks",
        f"megabench:{rows}",
        "--model",
        f"replay/{tmp_path / 'responses.jsonl'}",
        "--output",
        str(out),
    ]
    if judge:
        cmd += ["--judge", f"replay/{tmp_path / 'judge.jsonl'}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    results["_records"] = [
        json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    return results


@pytest.mark.slow
def test_judged_open_tasks_by_hand(tmp_path: Path) -> None:
    results = _run(tmp_path, judge=True)
    tasks = results["tasks"]
    # open_summary: 7/10 and 10/10 judged, sample 3 judge_failed (score 0, counted, not a verdict)
    summary = tasks["open_summary"]
    assert summary["states"]["judge_failed"] == 1
    records = {r["sample_id"]: r for r in results["_records"]}
    assert records["1"]["metrics"]["megabench_score"] == pytest.approx(0.7)
    assert records["2"]["metrics"]["megabench_score"] == pytest.approx(1.0)
    assert records["3"]["state"] == "judge_failed" and "no score found" in records["3"]["reason"]
    assert len(records["3"]["judge"]["calls"][0]["attempts"]) == 3  # first call + 2 bounded retries
    # ascii: "Yes." → 1; core unaffected by the judge: (1 + 0) / 2
    assert records["4"]["metrics"]["megabench_score"] == 1.0
    assert tasks["core_letter"]["score"] == pytest.approx(0.5)
    assert summary["judge"]["judge_failed"] == 1 and summary["judge"]["n_judged"] == 2
    # the task score averages the judged samples: (0.7 + 1.0) / 2; the failure is counted, not scored
    assert summary["score"] == pytest.approx(0.85)
    assert summary["metrics"]["megabench_judged"] > 0  # what the megabench scheme reads as "computed"
    # the board: Core = 0.5 (one task); Open = (0.85 + 1.0) / 2; Overall = (1·0.5 + 2·0.925) / 3
    row = megabench_board([{k: v for k, v in results.items() if k != "_records"}])["rows"][0]
    assert (row["core"], row["open"], row["n_open_tasks"]) == (pytest.approx(0.5), pytest.approx(0.925), 2)
    assert row["overall"] == pytest.approx((0.5 + 2 * 0.925) / 3)


@pytest.mark.slow
def test_without_judge_open_tasks_are_unjudged(tmp_path: Path) -> None:
    results = _run(tmp_path, judge=False)
    records = {r["sample_id"]: r for r in results["_records"]}
    assert (
        records["1"]["metrics"]["megabench_not_applicable"] == 1.0
    )  # no verdict: not applicable, not a judged 0
    assert records["1"].get("judge") is None
    assert results["tasks"]["core_letter"]["score"] == pytest.approx(0.5)


def test_broken_judge_config_fails_at_import(tmp_path: Path) -> None:
    bad = JUDGED.replace("'resp': 'model_output', ", "")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(_row(9, "open_bad", bad, "x")) + "\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"placeholder\(s\) \['resp'\]") as info:
        import_megabench(str(rows))
    assert "rows.jsonl" in str(info.value) and "9" in str(info.value) and "metric_info" in str(info.value)


def test_open_task_spec_has_a_judge(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    specs = {t.name: t.spec for t in import_megabench(str(rows))}
    assert specs["core_letter"].judge is None
    judge = specs["open_summary"].judge
    assert judge is not None and (judge.scale, judge.value_divisor, judge.parser.name) == (
        (1.0, 10.0),
        10.0,
        "megabench.judge_score",
    )
    ascii_judge = specs["ascii_cat"].judge
    assert ascii_judge is not None and ascii_judge.protocol.name == "megabench_ascii_art"
    always = {t.name: t.spec for t in import_megabench(f"{rows}?judge_media=always")}["open_summary"].judge
    assert always is not None and always.protocol.options == {"media": "always"}
    with pytest.raises(TaskFileError, match="judge_media must be task, always or never"):
        import_megabench(f"{rows}?judge_media=sometimes")
