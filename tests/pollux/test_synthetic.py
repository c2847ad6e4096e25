"""Synthetic judge-training data: taxonomy-slot prompts, language filter, Algorithm 1 on crafted
near-duplicates, and export of teacher verdicts as training pairs."""

from __future__ import annotations

import json
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from omnieval.benchmarks.pollux.judge_task import import_judge_task
from omnieval.benchmarks.pollux.synthetic import (
    export_training_pairs,
    generation_prompts,
    non_russian_share,
    parse_problem,
    semantic_dedup,
)

from .conftest import write_jsonl


def trigram_embed(texts: list[str]) -> np.ndarray:
    """A deterministic stand-in for an embedding model: hashed character trigrams."""
    out = np.zeros((len(texts), 512))
    for row, text in enumerate(texts):
        low = text.lower()
        for i in range(len(low) - 2):
            out[row, zlib.crc32(low[i : i + 3].encode()) % 512] += 1.0
    return out


def one_hot_embed(texts: list[str]) -> np.ndarray:
    """Every text orthogonal to every other: cosine never fires, so chrF decides."""
    return np.eye(len(texts), 64)


def test_generation_prompts_fill_every_slot() -> None:
    prompts = list(generation_prompts())
    stem = [p for p in prompts if p["task_type"] == "STEM exercises"]
    assert len(stem) == 5 * 2  # five disciplines × two levels
    first = stem[0]["prompt"]
    assert (
        "- **General Problem Type:** STEM exercises" in first
        and "- **Specific Problem Type:** Mathematics" in first
    )
    assert "{problem_" not in first and "[PROBLEM]" in first


def test_parse_problem_and_language_filter() -> None:
    assert parse_problem("[PROBLEM] Напишите эссе о весне. [END]") == "Напишите эссе о весне."
    assert parse_problem("[PROBLEM] Без конца") == "Без конца" and parse_problem("нет тега") is None
    assert non_russian_share("Напишите короткое эссе о весне") == 0.0
    assert non_russian_share("Напишите essay о spring") == pytest.approx(0.5)
    assert non_russian_share("Сумма 2 + 2 равна 4") == 0.0  # numbers are not words


NEAR = [
    {
        "id": "s1",
        "task_type": "Editing",
        "text": "Исправьте ошибки в тексте про осенний лес и холодный дождь.",
    },
    {
        "id": "s2",
        "task_type": "Editing",
        "text": "Исправьте ошибки в тексте про осенний лес и холодный дождь!",
    },
    {"id": "s3", "task_type": "Editing", "text": "Составьте план статьи о путешествиях к далёким звёздам."},
    {
        "id": "s4",
        "task_type": "Code creation",
        "text": "Исправьте ошибки в тексте про осенний лес и холодный дождь.",
    },
]


def test_dedup_removes_near_duplicates_within_a_task_type_only() -> None:
    report = semantic_dedup(NEAR, [], embed=trigram_embed)
    assert report.removed == {"s2": "cosine"}
    assert report.kept == ["s1", "s3", "s4"]  # s4 is the same text in another task type: kept


def test_dedup_chrf_path_when_embeddings_disagree() -> None:
    report = semantic_dedup(NEAR[:3], [], embed=one_hot_embed)
    assert report.removed == {"s2": "chrf"}


def test_expert_thresholds_send_close_samples_to_the_classifier() -> None:
    expert = [
        {"task_type": "Editing", "text": t}
        for t in (
            "Отредактируйте письмо коллеге о переносе встречи.",
            "Проверьте орфографию в заметке о выставке картин.",
            "Найдите ошибки в объявлении о продаже велосипеда.",
        )
    ]
    synthetic = [
        {"id": "a", "task_type": "Editing", "text": "Исправьте ошибки в объявлении о продаже велосипеда."},
        {"id": "b", "task_type": "Editing", "text": "Исправьте ошибки в объявлении о продаже самоката."},
    ]
    asked: list[tuple[str, str]] = []

    def classifier(x: str, y: str) -> bool:
        asked.append((x, y))
        return True

    report = semantic_dedup(
        synthetic, expert, embed=trigram_embed, cosine_max=0.99, chrf_max=0.99, is_duplicate=classifier
    )
    assert "Editing" in report.thresholds
    assert report.removed == {"b": "classifier"} and asked == [(synthetic[1]["text"], synthetic[0]["text"])]
    review = semantic_dedup(synthetic, expert, embed=trigram_embed, cosine_max=0.99, chrf_max=0.99)
    assert review.review == ["b"] and review.kept == ["a", "b"]  # no classifier: kept, flagged


def test_export_training_pairs_from_a_teacher_run(mini: dict[str, Path], tmp_path: Path) -> None:
    answers = write_jsonl(tmp_path / "answers.jsonl", [{"item_id": "i1", "model": "m1", "answer": "Текст."}])
    spec = f"{mini['items']}?answers={answers}&template=en"
    (task,) = import_judge_task(spec)
    samples = list(task.iter_samples())
    assert samples[0].input.startswith("### Task Description:")
    lines = []
    for s in samples:
        top = s.metadata["pollux_criterion"]["max"]
        text = (
            "[FEEDBACK] Ответ полностью соответствует шкале. [RESULT] "
            f"{top if s.metadata['pollux_criterion']['higher_is_better'] else 0} [END]"
        )
        if s.id.endswith("literacy@universal"):
            text = "[FEEDBACK] Fine. [RESULT] 1 [END]"  # English, one word, not perfect: rejected
        lines.append({"task": "pollux_judge", "sample_id": s.id, "response": text})
    replay = write_jsonl(tmp_path / "teacher.jsonl", lines)
    out = tmp_path / "teacher_run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            f"pollux_judge:{spec}",
            "--model",
            f"replay/{replay}",
            "--output",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    pairs, counts = export_training_pairs(out, mini["items"], answers)
    assert counts == {"exported": 16, "verdict_rejected": 1}
    assert pairs[0]["prompt"].startswith("### Задание для оценки:")  # trained on the RU template
    assert pairs[0]["target"].startswith("[FEEDBACK] ") and pairs[0]["target"].endswith("[RESULT] 0 [END]")
    reg, _ = export_training_pairs(out, mini["items"], answers, target="regression")
    assert {p["target"] for p in reg} <= {0.0, 2.0} and json.dumps(reg)


def test_instruction_generation_through_a_run(tmp_path: Path) -> None:
    from omnieval.benchmarks.pollux.items import load_items
    from omnieval.benchmarks.pollux.synthetic import synthetic_items

    prompts = [p for p in generation_prompts() if p["task_type"] in ("Editing", "Rephrasing")][:3]
    prompts_file = write_jsonl(tmp_path / "prompts.jsonl", prompts)
    replies = [
        "[PROBLEM] Исправьте ошибки в заметке о городском парке. [END]",
        "[PROBLEM] Please rewrite this paragraph about the weather. [END]",  # not Russian: filtered
        "Здравствуйте! Вот задача.",
    ]  # no [PROBLEM]: counted
    replay = write_jsonl(
        tmp_path / "gen.jsonl",
        [{"task": "pollux_synth", "sample_id": str(i), "response": r} for i, r in enumerate(replies)],
    )
    out = tmp_path / "gen_run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            f"pollux_synth:{prompts_file}",
            "--model",
            f"replay/{replay}",
            "--output",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    items, counts = synthetic_items(out)
    assert counts == {"kept": 1, "language_filtered": 1, "no_problem": 1}
    path = write_jsonl(tmp_path / "synth_items.jsonl", items)
    (item,) = load_items(path)  # the output is a valid POLLUX items file
    assert item.instruction == "Исправьте ошибки в заметке о городском парке." and item.task_type == "Editing"


@pytest.mark.hf
def test_dedup_cli_with_a_local_embedding_model(tmp_path: Path, tiny_llama: Path) -> None:
    from typer.testing import CliRunner

    from omnieval.benchmarks.pollux.cli import app

    synthetic = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"id": "x1", "task_type": "Editing", "text": "Исправьте ошибки в заметке о парке."},
            {
                "id": "x2",
                "task_type": "Editing",
                "text": "Исправьте ошибки в заметке о парке.",
            },  # exact copy: cosine 1
            {
                "id": "x3",
                "task_type": "Editing",
                "text": "Please fix the errors in this note.",
            },  # not Russian
        ],
    )
    expert = write_jsonl(tmp_path / "e.jsonl", [{"task_type": "Editing", "text": "Отредактируйте письмо."}])
    args = ["dedup", "--synthetic", str(synthetic), "--expert", str(expert), "--embedder"]
    for embedder in (str(tiny_llama), f"hf/{tiny_llama}"):  # a bare folder (the old form) and a spec
        result = CliRunner().invoke(app, [*args, embedder])
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert (
            report["language_filtered"] == 1
            and report["kept"] == ["x1"]
            and report["removed"] == {"x2": "cosine"}
        )
    failed = CliRunner().invoke(app, [*args, "gte/qwen2"])  # neither a folder nor a known provider
    assert failed.exit_code == 2 and "unknown embedder provider 'gte'" in failed.output
