"""Miniature MERA Multi datasets in the exact published schema, for tests and for users without the data.

``make_mini(ROOT)`` writes one folder per dataset, named as its repository (``RuSLUn``, ``ruHHH-Image``),
each with ``data/test-00000-of-00001.parquet``, ``data/shots-00000-of-00001.parquet`` and the
``prompt_config.yaml`` its instructions were built from. Private tasks get empty ``outputs`` in
``test`` (as published); their answers go to the hidden copy ``ROOT/.answers/<Name>.json``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import yaml

from omnieval.benchmarks.mera.catalog import MeraTask, catalogue
from omnieval.benchmarks.mera.mini_media import make_audio, make_image, make_video
from omnieval.benchmarks.mera.prompts import PromptTask, assign_prompts, default_config, render_prompt

__all__ = ["ANSWERS_DIR", "hidden_answers", "make_mini"]

ANSWERS_DIR = ".answers"
_OE_ANSWERS = ("да", "нет", "3", "красный", "куб", "в пятницу")
_INTENTS: tuple[tuple[str, list[dict[str, str]]], ...] = (
    ("RateBook", [{"object_name": "доктор живаго"}, {"rating_value": "три"}]),
    ("PlayMusic", [{"artist": "земфира"}]),
    ("GetWeather", []),
)
_DIALOGUE_LEN = 500


def _json_answer(i: int) -> str:
    intent, slots = _INTENTS[i % len(_INTENTS)]
    return json.dumps({"intent": intent, "slots": slots}, ensure_ascii=False)


def _answer(task: MeraTask, i: int, rng: random.Random | None) -> str:
    if task.answer == "MC":
        return rng.choice(task.letters) if rng else task.letters[(i * 3 + 1) % task.options]
    if task.answer == "JSON":
        return _json_answer(i)
    return _OE_ANSWERS[i % len(_OE_ANSWERS)]


def _meta(task: MeraTask, i: int, sample_id: int) -> dict[str, Any]:
    meta: dict[str, Any] = {"id": sample_id}
    if task.domain_field:
        value = task.domains[i % len(task.domains)] if task.domains else f"type_{i % 2}"
        *parents, leaf = task.domain_field.split(".")
        node = meta
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    if task.group_field:
        meta[task.group_field] = i // 3
    if task.dialogue:
        meta["dialog_id"], meta["question_id"] = divmod(sample_id, _DIALOGUE_LEN)
    if task.name == "weird":
        meta["pair_id"] = i // 2
    return meta


def _inputs(task: MeraTask, i: int, seed: int, dataset_dir: Path) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    for n, (field, kind) in enumerate(task.media.items()):
        media_seed = seed + 31 * n
        if kind == "image":
            inputs[field] = {"bytes": make_image(media_seed), "path": f"{field}_{seed}.png"}
        elif kind == "audio":
            inputs[field] = {"bytes": make_audio(media_seed), "path": f"{field}_{seed}.wav"}
        else:
            rel = f"samples/{field}_{seed}.mp4"
            make_video(dataset_dir / rel, media_seed)
            inputs[field] = rel
    texts = {
        "question": f"Что изображено или звучит в примере {seed} задачи {task.hf_name}?",
        "context": f"Контекст примера {seed}.",
        "annotation": "Запишите ответ одним словом."
        if task.answer != "JSON"
        else "Интенты: RateBook, PlayMusic, GetWeather.",
    }
    for field in task.text:
        inputs[field] = texts[field]
    for k, field in enumerate(task.option_fields):
        inputs[field] = f"вариант {task.letters[k]} к примеру {seed}"
    return inputs


def _rows(
    task: MeraTask, ids: list[int], dataset_dir: Path, *, hide: bool, rng: random.Random | None = None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    prompt_task = PromptTask.from_task(task)
    config = default_config(prompt_task)
    assigned = assign_prompts(len(ids), seed=len(task.name))
    rows, answers = [], {}
    for i, sample_id in enumerate(ids):
        meta = _meta(task, i, sample_id)
        group_seed = (i // 3) if task.group_field else i  # ruHHH: one medium and question per group
        inputs = _inputs(task, i, sample_id if not task.group_field else 10_000 + group_seed, dataset_dir)
        context = f"Категория: {meta['categories']['category']}." if task.group_field else None
        instruction = render_prompt(prompt_task, config[f"prompt_{assigned[i] + 1}"], task_context=context)
        answer = _answer(task, i, rng)
        answers[str(sample_id)] = answer
        rows.append(
            {"instruction": instruction, "inputs": inputs, "outputs": "" if hide else answer, "meta": meta}
        )
    return rows, answers


def _ids(task: MeraTask, n: int, *, offset: int) -> list[int]:
    if task.dialogue:  # two dialogues of n//2 turns, ids dialog*500 + turn as in ruTiE
        per = max(n // 2, 1)
        return [offset + d * _DIALOGUE_LEN + q for d in range(2) for q in range(per)]
    if task.group_field:
        n = 3 * max(n // 3, 1)
    return [offset + i for i in range(n)]


def _write_parquet(rows: list[dict[str, Any]], path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=2)


def make_mini(
    root: Path | str,
    *,
    n: int = 6,
    with_answers: bool = False,
    tasks: list[str] | None = None,
    seed: int | None = None,
) -> Path:
    """Write the miniature datasets under ``root`` (one folder per task); returns ``root``.

    ``with_answers`` keeps the answers of private tasks in ``test`` too (a fully scoreable copy). ``seed``
    draws multiple-choice answers at random (the score-oracle attacker must not guess a pattern).
    """
    root = Path(root)
    for task in catalogue().tasks:
        if tasks is not None and task.name not in tasks:
            continue
        dataset_dir = root / task.hf_name
        hide = not task.public and not with_answers
        rng = None if seed is None else random.Random(f"{seed}:{task.name}")
        test_rows, answers = _rows(task, _ids(task, n, offset=0), dataset_dir, hide=hide, rng=rng)
        shot_rows, _ = _rows(task, _ids(task, 3, offset=100_000), dataset_dir, hide=False)
        _write_parquet(test_rows, dataset_dir / "data" / "test-00000-of-00001.parquet")
        _write_parquet(shot_rows, dataset_dir / "data" / "shots-00000-of-00001.parquet")
        config = default_config(PromptTask.from_task(task))
        (dataset_dir / "prompt_config.yaml").write_text(
            yaml.safe_dump(config, sort_keys=False), encoding="utf-8"
        )
        hidden = root / ANSWERS_DIR / f"{task.hf_name}.json"
        hidden.parent.mkdir(parents=True, exist_ok=True)
        hidden.write_text(json.dumps(answers, ensure_ascii=False, indent=1), encoding="utf-8")
    return root


def hidden_answers(root: Path | str, task: MeraTask) -> dict[str, str]:
    """The hidden answers of one miniature task, by sample id."""
    path = Path(root) / ANSWERS_DIR / f"{task.hf_name}.json"
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data
