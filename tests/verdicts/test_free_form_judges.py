"""ART's descriptive protocol and MARKER's 1-5 rubric through the judge machinery: protocol → template →
judge backend (replay) → parser → scale check → bounded retries → JudgeRecord / run results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from omnieval.benchmarks.art.judge import SYSTEM_PROMPT, art_descriptive, descriptive_summary
from omnieval.benchmarks.art.judge import judge_spec as art_judge_spec
from omnieval.benchmarks.marker.judge import RUBRIC, judge_spec
from omnieval.judges import Judge, JudgeInput, create_judge_backend, get_judge_template
from omnieval.prompts.templates import render_template
from omnieval.types import Sample


def _replay(tmp_path: Path, task: str, outputs: dict[str, str]) -> str:
    path = tmp_path / f"{task}_judge.jsonl"
    path.write_text(
        "".join(json.dumps({"task": task, "sample_id": k, "response": v}) + "\n" for k, v in outputs.items()),
        encoding="utf-8",
    )
    return f"replay/{path}"


ART_SPEC = art_judge_spec()


def _art_sample(i: str, question: str, answer: str) -> Sample:
    return Sample(id=i, input="", targets=(answer,), metadata={"question": question, "task": "SR"})


def test_art_prompt_is_listing_one_plus_the_three_lines() -> None:
    sample = _art_sample("1", "Are there as many dog barks as there are bell rings?", "No")
    plan = art_descriptive(
        JudgeInput(sample, "Answer the question from the audio.", "  There are more barks.\n", ("No",))
    )
    (call,) = plan.calls
    template = get_judge_template("art_descriptive@1")
    assert template.system == SYSTEM_PROMPT and SYSTEM_PROMPT.startswith(
        "You will receive a question, an expected answer"
    )
    user = render_template(template.user, **call.variables)
    assert (
        user == "Question: Are there as many dog barks as there are bell rings?\nExpected Answer: No\nGiven "
        "Answer: There are more barks."
    )


async def test_art_judged_through_the_judge_engine(tmp_path: Path) -> None:
    outputs = {
        "1": "Relevant\nCorrect",
        "2": "Relevant\nIncorrect",
        "3": "Irrelevant\nTalks about volume.",
        "4": "Maybe?",
    }
    judge = Judge(
        task="art.SR", spec=ART_SPEC, backend=create_judge_backend(_replay(tmp_path, "art.SR", outputs))
    )
    records = {}
    for i, gold in (("1", "Yes"), ("2", "No"), ("3", "Yes"), ("4", "No")):
        sample = _art_sample(i, f"Question {i}?", gold)
        records[i] = await judge.judge(
            sample, question="Answer the question from the audio.", answer="Some answer.", targets=(gold,)
        )
    assert [records[i].value for i in "123"] == [1.0, 0.0, 0.0]
    assert records["4"].value is None and "first line must start with Relevant" in (records["4"].reason or "")
    assert len(records["4"].calls[0].attempts) == 3  # 1 + 2 bounded retries, then judge_failed
    summary = descriptive_summary([{"judge": r.model_dump(mode="json")} for r in records.values()])
    # judged 3: relevant 2/3, absolute accuracy 1/3, relative accuracy 1/2; the failure counted apart
    assert summary == {
        "judged": 3,
        "judge_failed": 1,
        "relevant": pytest.approx(2 / 3),
        "absolute_accuracy": pytest.approx(1 / 3),
        "relative_accuracy": pytest.approx(0.5),
    }


def test_marker_rubric_template_lists_the_five_levels() -> None:
    spec = judge_spec()
    template = get_judge_template(spec.template or "")
    for score, text in RUBRIC:
        assert f"{score} — {text}" in (template.system or "")
    user = render_template(
        template.user, question="Задача про маятник", gold="T = 2π√(l/g)", answer="Период 2 с."
    )
    assert (
        user
        == "Задача:\nЗадача про маятник\n\nЭталонное решение:\nT = 2π√(l/g)\n\nРешение модели:\nПериод 2 с."
    )
    assert "Эталонное" not in render_template(template.user, question="q", gold="", answer="a")
    strict = get_judge_template(judge_spec(correctness=True).template or "")
    assert "Неверный итоговый ответ" in (strict.system or "") and "Неверный итоговый ответ" not in (
        template.system or ""
    )


MARKER_TASK = """\
name: marker_physics_open
source: {type: jsonl, path: physics.jsonl}
language: ru
prompt: {template: "{{ input }}"}
metrics: [{name: exact_match, alias: em}]
judge:
  key: rubric
  protocol: direct
  template: marker_physics_rubric
  parser: marker.rubric_score
  scale: [1, 5]
  generation: {temperature: 0.0, max_tokens: 512}
"""


@pytest.mark.slow
def test_marker_rubric_in_a_judged_run(tmp_path: Path) -> None:
    items = [("p1", "Почему небо голубое?"), ("p2", "Что такое импульс?"), ("p3", "Найдите период маятника.")]
    (tmp_path / "physics.jsonl").write_text(
        "".join(
            json.dumps({"id": i, "question": q, "answer": "эталон"}, ensure_ascii=False) + "\n"
            for i, q in items
        ),
        encoding="utf-8",
    )
    (tmp_path / "task.yaml").write_text(MARKER_TASK, encoding="utf-8")
    answers = {"p1": "Рассеяние Рэлея.", "p2": "p = mv", "p3": "не знаю"}
    (tmp_path / "answers.jsonl").write_text(
        "".join(
            json.dumps({"task": "marker_physics_open", "sample_id": k, "response": v}, ensure_ascii=False)
            + "\n"
            for k, v in answers.items()
        ),
        encoding="utf-8",
    )
    judge = _replay(
        tmp_path,
        "marker_physics_open",
        {"p1": "Оценка: 5\nПояснение: всё верно.", "p2": "**Оценка:** 4", "p3": "Оценка: 7"},
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            str(tmp_path / "task.yaml"),
            "--model",
            f"replay/{tmp_path / 'answers.jsonl'}",
            "--judge",
            judge,
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    task: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))["tasks"][
        "marker_physics_open"
    ]
    # p1 5/5, p2 4/5; p3 "7" is outside 1-5 on every attempt → judge_failed (never clipped to 5)
    assert task["states"]["judge_failed"] == 1
    assert task["metrics"]["rubric"] == pytest.approx((5 / 5 + 4 / 5) / 2)  # mean rubric score 4.5 = 5 × 0.9
    records = {
        json.loads(line)["sample_id"]: json.loads(line)
        for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    }
    assert "outside the scale" in records["p3"]["reason"]


@pytest.mark.slow
def test_judge_plugins_register_through_the_suites(tmp_path: Path) -> None:
    """A fresh process finds the ART, MARKER and pairwise judge plugins by name (no direct import)."""
    (tmp_path / "d.jsonl").write_text(
        json.dumps({"id": "1", "question": "q", "answer": "Yes"}) + "\n", encoding="utf-8"
    )
    tasks = {
        "art": "{protocol: art_descriptive, template: art_descriptive, parser: art.judge_verdict, scale: [0, "
        "1]}",
        "marker": "{protocol: direct, template: marker_physics_rubric, parser: marker.rubric_score, scale: "
        "[1, 5]}",
        "pair": "{protocol: pairwise, template: pairwise_preference, parser: pairwise_preference, scale: [0, "
        "1]}",
    }
    paths = []
    for name, judge in tasks.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(
            f"name: {name}\nsource: {{type: jsonl, path: d.jsonl}}\nprompt: "
            f"{{template: '{{{{ input }}}}'}}\njudge: {judge}\n",
            encoding="utf-8",
        )
        paths.append(str(path))
    done = subprocess.run(
        [sys.executable, "-m", "omnieval", "validate", *paths],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("ok ") == 3
