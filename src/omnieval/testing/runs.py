"""Synthetic run directories (records, results, manifest) for report tests and ``benchmarks/report_size.py``.

The records have the shape the runner writes, including a taxonomy in task and sample metadata, prompt
variants, every state, judge fields and long texts, so a report built from them exercises every panel.
Scores are drawn from a seeded generator with a per-model skill, so two synthetic runs differ the way
two models do. ``prose=True`` swaps the repeated filler words for varied pseudo-Russian prose and adds
a prompt (a per-variant instruction plus a question), so report sizes are measured on text that
compresses about as model output does (gzip ~4x) rather than ~30x.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

__all__ = ["write_synthetic_run"]

SKILLS = ("perception", "reasoning", "knowledge", "counting", "ocr", "spatial")
STATE_MIX = (
    ("ok", 0.86),
    ("parse_failed", 0.05),
    ("truncated", 0.02),
    ("error", 0.02),
    ("judge_failed", 0.03),
    ("skipped", 0.02),
)


INSTRUCTIONS = (
    "Прочитайте вопрос и выберите правильный ответ. Рассуждайте по шагам, затем напишите «ОТВЕТ: » и букву "
    "варианта.",
    "Вы эксперт. Ответьте на вопрос, опираясь на изображение и текст. "
    "В конце ответа укажите букву: ОТВЕТ: X.",
    "Задание: решите задачу. Сначала кратко объясните решение, затем дайте ответ в формате «ОТВЕТ: буква».",
)


class _Prose:
    """Seeded pseudo-Russian words drawn Zipf-like from a 20,000-word vocabulary (compresses like prose)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        consonants, vowels = "бвгдзклмнпрстфхцчшщжй", "аеиоуыэюяё"
        self.words = [
            "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.randint(1, 4)))
            + rng.choice(("", "", "т", "й", "м", "х"))
            for _ in range(20_000)
        ]
        self.weights = list(itertools.accumulate(1 / rank for rank in range(1, 20_001)))

    def __call__(self, low: int, high: int) -> str:
        return " ".join(self.rng.choices(self.words, cum_weights=self.weights, k=self.rng.randint(low, high)))


def _prose_fields(record: dict[str, Any], i: int, prose: _Prose) -> None:
    record["prompt"] = (
        f"{INSTRUCTIONS[i % 3]}\n\nВопрос {i}: {prose(15, 60)}?\nA) {prose(1, 4)}\nB) {prose(1, 4)}\nC) "
        f"{prose(1, 4)}\nD) {prose(1, 4)}"
    )
    answer = record["response"].split("ОТВЕТ: ")[1][0]
    record["response"] = f"Рассуждаем по шагам о примере {i}. {prose(20, 150)}. ОТВЕТ: {answer}"
    record["reasoning"] = prose(0, 300) or None
    if record["judge_rationale"]:
        record["judge_rationale"] = f"Ответ совпадает с эталоном по смыслу: {prose(10, 40)}."


def _state(rng: random.Random) -> str:
    x, total = rng.random(), 0.0
    for state, share in STATE_MIX:
        total += share
        if x < total:
            return state
    return "ok"


def _record(
    task: str, i: int, *, rng: random.Random, skill: float, binary: bool, version: int
) -> dict[str, Any]:
    state = _state(rng)
    correct = rng.random() < skill
    score = (1.0 if correct else 0.0) if binary else round(min(1.0, max(0.0, rng.gauss(skill, 0.2))), 3)
    score = score if state == "ok" else 0.0
    answer = "B" if correct else "C"
    return {
        "task": task,
        "sample_id": f"{task}-{i:06d}",
        "state": state,
        "score": score,
        "metrics": {"em": score} if binary else {"judge_score": score},
        "response": f"Рассуждаем по шагам о примере {i}. ОТВЕТ: {answer}" + " подробнее" * rng.randint(0, 40),
        "raw_response": None,
        "reasoning": "думаю…" * rng.randint(0, 3) or None,
        "extracted": answer if state == "ok" else None,
        "reason": None if state == "ok" else f"synthetic {state} for sample {i}",
        "targets": ["B"],
        "variant": f"p{i % 3}",
        "finish_reason": "stop",
        "usage": None,
        "latency_s": 0.4,
        "cached": False,
        "fingerprint": None,
        "chain": None,
        "chain_index": None,
        "scored": True,
        "media_policy": {},
        "metadata": {
            "skill": SKILLS[i % len(SKILLS)],
            "difficulty": ("easy", "medium", "hard")[i % 3],
            "n_options": 4,
        },
        "judge_verdict": (1 if correct else 0) if state == "ok" and not binary else None,
        "judge_rationale": "Ответ совпадает с эталоном по смыслу." if state == "ok" and not binary else None,
    }


def write_synthetic_run(
    out: Path,
    *,
    n_samples: int,
    n_tasks: int = 4,
    model: str = "synthetic/model",
    skill: float = 0.6,
    seed: int = 0,
    version: int = 1,
    prose: bool = False,
) -> Path:
    """A finished-looking run directory with ``n_samples`` records spread over ``n_tasks`` tasks."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    words = _Prose(random.Random(seed + 1)) if prose else None
    per_task = [n_samples // n_tasks + (1 if t < n_samples % n_tasks else 0) for t in range(n_tasks)]
    tasks: dict[str, Any] = {}
    with (out / "samples.jsonl").open("w", encoding="utf-8") as fh:
        for t, count in enumerate(per_task):
            name, binary = f"task_{t}", t % 2 == 0
            task_skill = min(0.95, max(0.05, skill + 0.1 * (t % 3 - 1)))
            scores, states = (
                [],
                dict.fromkeys(("ok", "parse_failed", "truncated", "error", "skipped", "judge_failed"), 0),
            )
            for i in range(count):
                record = _record(name, i, rng=rng, skill=task_skill, binary=binary, version=version)
                if words is not None:
                    _prose_fields(record, i, words)
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                scores.append(record["score"])
                states[record["state"]] += 1
            mean = sum(scores) / len(scores) if scores else 0.0
            tasks[name] = {
                "score": mean,
                "n": count,
                "n_scored": count,
                "scored": True,
                "states": states,
                "metrics": {("em" if binary else "judge_score"): mean},
                "score_metric": "em" if binary else "judge_score",
                "ci95": [max(0.0, mean - 0.05), min(1.0, mean + 0.05)],
                "version": str(version),
                "hash": f"h{t}v{version}",
                "modalities": ["text", ("image", "audio", "video")[t % 3]],
                "metadata": {
                    "skills": list(SKILLS[t % 3 : t % 3 + 3]),
                    "answer_format": "MC" if binary else "OE",
                    "human_baseline": 0.9 if t % 2 == 0 else None,
                },
            }
    results = {"model": model, "omnieval_version": "synthetic", "tasks": tasks}
    (out / "results.json").write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    manifest = {
        "config": {"model": model, "backend": {"provider": model.split("/")[0]}},
        "status": "finished",
        "tasks": {n: {"hash": b["hash"], "version": str(version)} for n, b in tasks.items()},
    }
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return out
