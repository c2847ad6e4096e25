"""Through the ordinary runner: answers as a generative ``pollux:`` task, judge calls as a
``pollux_judge:`` task (a replayed generative judge and a regression head trained here on a tiny
random-weight model), then ``omnieval pollux evaluate`` over the judge run directories."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from omnieval.benchmarks.pollux.judge_task import import_judge_task, read_answers
from omnieval.benchmarks.pollux.pipeline import evaluate

from .conftest import write_jsonl

ANSWERS = [
    {"item_id": "i1", "model": "m1", "answer": "Исправленный текст без ошибок."},
    {"item_id": "i2", "model": "m1", "answer": "def f():\n    return 1"},
]


def omnieval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "omnieval", *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_answer_generation_run_and_its_answers(mini: dict[str, Path], tmp_path: Path) -> None:
    replay = write_jsonl(
        tmp_path / "replay.jsonl", [{"task": "pollux", "sample_id": "i1", "response": "Ответ."}]
    )
    out = tmp_path / "answers_run"
    proc = omnieval(
        "run",
        "--tasks",
        f"pollux:{mini['items']}",
        "--model",
        f"replay/{replay}",
        "--output",
        str(out),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    answers, skipped = read_answers(out)
    assert [a["item_id"] for a in answers] == [
        "i1"
    ] and skipped == 1  # i2 had no replayed answer: error state
    assert answers[0]["model"] == f"replay/{replay}"


def test_generative_judge_run_then_evaluate(mini: dict[str, Path], tmp_path: Path) -> None:
    answers = write_jsonl(tmp_path / "answers.jsonl", ANSWERS)
    spec = f"{mini['items']}?answers={answers}"
    (task,) = import_judge_task(spec)
    samples = list(task.iter_samples())
    assert len(samples) == 17 + 17  # 13 universal + 4 task-specific each (Editing; Code creation)
    assert task.spec.metadata["n_no_reference"] == 0
    first = samples[0]
    assert (
        first.input.startswith("### Задание для оценки:") and first.metadata["pollux_criterion"]["max"] == 1
    )
    lines = []
    for s in samples:
        crit = s.metadata["pollux_criterion"]
        good = (
            "[FEEDBACK] Нарушений нет, всё в порядке. [RESULT] 0 [END]"
            if not crit["higher_is_better"]
            else f"[FEEDBACK] Ответ хороший. [RESULT] {crit['max']} [END]"
        )
        if s.metadata["pollux_triple"]["criterion"] == "literacy@universal":
            good = "[FEEDBACK] Ответ хороший. [RESULT] 4 [END]"  # M-Prometheus style: out of scale
        lines.append({"task": "pollux_judge", "sample_id": s.id, "response": good})
    replay = write_jsonl(tmp_path / "judge_replay.jsonl", lines)
    out = tmp_path / "judge_run"
    proc = omnieval(
        "run",
        "--tasks",
        f"pollux_judge:{spec}",
        "--model",
        f"replay/{replay}",
        "--output",
        str(out),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    proc = omnieval(
        "pollux",
        "evaluate",
        "--items",
        str(mini["items"]),
        "--annotations",
        str(mini["annotations"]),
        "--judge",
        f"gen={out}",
    )
    assert proc.returncode == 0, proc.stderr
    judge = json.loads(proc.stdout)["judges"]["gen"]
    assert judge["audit"]["states"] == {"scored": 32, "judge_failed": 2}  # literacy on both answers
    assert judge["audit"]["reasons"] == {"score 4 outside the criterion scale 0..2": 2}
    # experts' surviving (i1, m1) / (i2, m1) triples: critical 0 vs 0, speech mode 2 vs 2,
    # operability mode 1 vs 1, correctness mode 2 vs 2 → MAE 0; literacy failed, two no-mode items
    assert judge["overall"]["mae"] == 0.0 and judge["overall"]["n_excluded_no_mode"] == 1


@pytest.mark.hf
def test_regression_head_trained_on_a_tiny_model_and_used_in_a_run(
    mini: dict[str, Path], tmp_path: Path, tiny_llama: Path
) -> None:
    from omnieval.benchmarks.pollux.regression import RegressionJudge

    judge = RegressionJudge(tiny_llama)
    texts = [
        "[FEEDBACK] Плохо, много ошибок.",
        "[FEEDBACK] Средне, есть ошибка.",
        "[FEEDBACK] Отлично, всё верно.",
    ] * 2
    targets = [0.0, 1.0, 2.0] * 2
    losses = judge.fit(texts, targets, steps=40, lr=0.05)
    assert losses[-1] < losses[0] / 2
    head = judge.save(tmp_path / "head")
    again = RegressionJudge.load(head)
    assert again.predict(texts[:3]) == pytest.approx(judge.predict(texts[:3]), abs=1e-5)
    answers = write_jsonl(tmp_path / "answers.jsonl", ANSWERS)
    out = tmp_path / "reg_run"
    from omnieval.runner import RunConfig
    from omnieval.runs.evaluation import evaluate_config as run_and_aggregate

    tasks = (f"pollux_judge:{mini['items']}?answers={answers}&regression=1",)
    run_and_aggregate(
        RunConfig(tasks=tasks, model=f"pollux_reg/{head}", output=out, quiet=True)
    )  # in-process: torch loads once
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(records) == 34 and all(r["response"].startswith("[RESULT] ") for r in records)
    result = evaluate(
        items_path=mini["items"],
        annotations_path=mini["annotations"],
        judge_paths={"reg": out},
        reference="mean",
    )
    states = result["judges"]["reg"]["audit"]["states"]
    assert sum(states.values()) == 34 and states.get("rejected", 0) == 0
    overall = result["judges"]["reg"]["report"]["overall"]["all"]
    assert overall["n_excluded_no_mode"] == 0  # regression judges are compared with the mean


def test_judged_run_one_call_per_criterion_then_evaluate(mini: dict[str, Path], tmp_path: Path) -> None:
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [{"task": "pollux", "sample_id": a["item_id"], "response": a["answer"]} for a in ANSWERS],
    )
    verdicts = write_jsonl(
        tmp_path / "judge.jsonl",
        [
            {
                "task": "pollux",
                "sample_id": "i1",
                "response": "[FEEDBACK] Ответ хороший, ошибок нет. [RESULT] 2 [END]",
            },
            {"task": "pollux", "sample_id": "i2", "response": "[FEEDBACK] Код верный. [RESULT] 1 [END]"},
        ],
    )
    out = tmp_path / "judged"
    proc = omnieval(
        "run",
        "--tasks",
        f"pollux:{mini['items']}",
        "--model",
        f"replay/{answers}",
        "--judge",
        f"replay/{verdicts}",
        "--output",
        str(out),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    (rec,) = [
        json.loads(line)
        for line in (out / "samples.jsonl").read_text().splitlines()
        if json.loads(line)["sample_id"] == "i1"
    ]
    labels = [c["label"] for c in rec["judge"]["calls"]]
    assert len(labels) == 17 and labels[0] == "critical_format@universal"  # one call per criterion
    result = evaluate(items_path=mini["items"], annotations_path=mini["annotations"], judge_paths={"j": out})
    audit = result["judges"]["j"]["audit"]
    # i1: the two critical criteria get 2 on a 0..1 scale → judge_failed (checked per criterion, never
    # clipped), its 15 others are scored; i2's 1 is a critical violation → its 15 others are gated
    assert audit["states"] == {"scored": 15 + 2, "judge_failed": 2, "critical_gated": 15}
    assert audit["reasons"] == {"score outside the criterion scale 0..1": 2}


def _repeated_run(run: Path, **fields: Any) -> Path:
    """A run folder of model m1 with two repeats of item i1 (each record also gets ``fields``, where a
    callable value is called with the repeat index)."""
    run.mkdir()
    (run / "results.json").write_text(json.dumps({"model": "m1", "tasks": {}}))
    records = [
        {"task": "pollux", "sample_id": "i1", "state": "ok", "repeat": r}
        | {k: v(r) if callable(v) else v for k, v in fields.items()}
        for r in range(2)
    ]
    write_jsonl(run / "samples.jsonl", records)
    return run


def test_each_repeat_of_a_run_with_repeats_is_judged_as_its_own_answer(
    mini: dict[str, Path], tmp_path: Path
) -> None:
    run = _repeated_run(tmp_path / "answers_run", response=lambda r: f"Ответ {r}.")
    answers, _ = read_answers(run)
    assert [(a["answer"], a["model"]) for a in answers] == [("Ответ 0.", "m1#0"), ("Ответ 1.", "m1#1")]
    (task,) = import_judge_task(f"{mini['items']}?answers={run}")
    ids = [s.id for s in task.iter_samples()]
    assert len(ids) == len(set(ids)) == 2 * 17  # i1's 17 criteria for each repeat, none collapsed
    assert {s.metadata["pollux_triple"]["model"] for s in task.iter_samples()} == {"m1#0", "m1#1"}


def test_a_judged_pollux_run_with_repeats_scores_each_repeat_as_an_answer_set(
    mini: dict[str, Path], tmp_path: Path
) -> None:
    from omnieval.benchmarks.pollux.items import load_items
    from omnieval.benchmarks.pollux.pipeline import load_judge_scores

    calls = [{"label": "literacy@universal", "verdict": 2.0, "attempts": [{"raw": "[RESULT] 2 [END]"}]}]
    judge = {"judge": "replay/judge.jsonl", "version": "v1", "key": "pollux", "calls": calls}
    run = _repeated_run(tmp_path / "judged", judge=judge)
    items = {item.id: item for item in load_items(mini["items"])}
    scores, _ = load_judge_scores(run, items)  # one verdict per (item, model, criterion): it was refused
    assert sorted(model for _, model, _ in scores) == ["m1#0", "m1#1"]
