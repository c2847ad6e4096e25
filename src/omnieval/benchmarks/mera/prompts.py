"""Block prompts: ten prompts per dataset built from 14 block keys and their variants.

A prompt is one variant id per block (``prompt_config.yaml``: ``prompt_1`` ... ``prompt_10``); the
texts live in ``blocks.yaml`` (Russian and English, written for omnieval). The rendered prompt keeps
``{question}``-style placeholders and media tags, ready to be stored as a sample's ``instruction``.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from string import Template
from typing import Any, Literal

import yaml

from omnieval.benchmarks.mera.catalog import MeraTask, Wording, find_task
from omnieval.errors import TaskFileError
from omnieval.types._base import Frozen

__all__ = [
    "BLOCK_KEYS",
    "N_PROMPTS",
    "PromptTask",
    "assign_prompts",
    "default_config",
    "load_config",
    "render_prompt",
    "validate_config",
]

BLOCK_KEYS: tuple[str, ...] = (
    "attention_hook",
    "task_description",
    "input_data",
    "processing_data",
    "context_intro",
    "task_context",
    "question",
    "answer_options",
    "solution_motivation",
    "reasoning_motivation",
    "reasoning_format",
    "answer_format",
    "limitations",
    "answer_motivation",
)
N_PROMPTS = 10
Lang = Literal["ru", "en"]
_BLOCKS = Path(__file__).with_name("blocks.yaml")

# The default ten-prompt matrix, one row per block, columns prompt_1 ... prompt_10.
_N, _D = "none", "default"
_FR, _IR, _FW, _IO = "formal_request", "informal_request", "formal_wish", "informal_order"
_PO, _PF, _PR, _IT = "impersonal_order", "impersonal_fact", "impersonal_request", "informal_technical"
_MATRIX: dict[str, tuple[str, ...]] = {
    "attention_hook": (_N, _FR, _N, _IR, _N, _IO, _PO, _PF, _PR, _IT),
    "task_description": (_N, _FR, _N, _IR, _FW, _IO, _N, _PF, _PR, _N),
    "input_data": (_N, _D, _N, _D, _D, _D, _N, _D, _D, _D),
    "processing_data": (_N, _N, _N, _IR, _FW, _N, _N, _N, _PR, _IT),
    "context_intro": (_N, _N, "in_dataset", "in_dataset", _N, _N, "in_dataset", _N, "in_dataset", _N),
    "task_context": (_N, _N, _D, _D, _N, _N, _D, _N, _D, _N),
    "question": (_D,) * 10,
    "answer_options": (_D,) * 10,
    "solution_motivation": (_N, _N, _FR, _IR, _N, _N, _PO, _N, _N, _IT),
    "reasoning_motivation": (_N, _N, _FR, _IR, _N, _IO, _PO, _N, _N, _IT),
    "reasoning_format": (_N, _N, _FR, _IR, _N, _IO, _PO, _N, _N, _IT),
    "answer_format": (_N, _FR, _FR, _IR, _FW, _IO, _PO, _PF, _PR, _IT),
    "limitations": (_N, _N, _N, _IR, _N, _IO, _PO, _N, _PR, _N),
    "answer_motivation": (_N, _N, _N, _IR, _N, _IO, _PO, _N, _N, _IT),
}


class PromptTask(Frozen):
    """What the prompt builder needs to know about a dataset (a MERA task or a new one)."""

    media: dict[str, Literal["image", "audio", "video"]]
    text: tuple[str, ...] = ("question",)
    answer: Literal["MC", "OE", "JSON"] = "OE"
    options: int = 0
    description: Wording
    context: Wording | None = None
    """Text of the ``task_context`` block; defaults to a sentence built from the description."""
    dialogue: bool = False
    per_sample_context: bool = False
    """ruHHH-style: the task context is chosen per sample (from its category)."""

    @classmethod
    def from_task(cls, task: MeraTask) -> PromptTask:
        return cls(
            media=task.media,
            text=task.text,
            answer=task.answer,
            options=task.options,
            description=task.description,
            dialogue=task.dialogue,
            per_sample_context=task.group_field is not None,
        )


@cache
def _blocks() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(_BLOCKS.read_text(encoding="utf-8"))
    return data


def default_config(task: PromptTask) -> dict[str, dict[str, str]]:
    """The ten-prompt matrix with the per-task exceptions (ruHHH, RuSLUn, ruTiE)."""
    config = {f"prompt_{i + 1}": {block: _MATRIX[block][i] for block in BLOCK_KEYS} for i in range(N_PROMPTS)}
    for prompt in config.values():
        if task.per_sample_context:  # ruHHH: the ethical category's explanation in every prompt
            prompt["context_intro"], prompt["task_context"] = "in_dataset", _D
        if task.answer == "JSON" or task.dialogue:  # RuSLUn, ruTiE: no reasoning prompts
            prompt["reasoning_motivation"] = prompt["reasoning_format"] = _N
        if task.dialogue:
            prompt["attention_hook"] = prompt["answer_motivation"] = _N
    if task.answer == "JSON" or task.dialogue:  # the answer format is needed even in the zero prompt
        config["prompt_1"]["answer_format"] = _IT
    return config


def validate_config(config: Any, *, path: str = "prompt_config.yaml") -> dict[str, dict[str, str]]:
    """Check a prompt config: ``prompt_1``.. ``prompt_10``, every block key, known variants."""
    if not isinstance(config, dict):
        raise TaskFileError("expected a mapping prompt_1 ... prompt_10", path=path)
    expected = [f"prompt_{i + 1}" for i in range(N_PROMPTS)]
    prompts = {k: v for k, v in config.items() if k.startswith("prompt_")}
    if sorted(prompts) != sorted(expected):
        raise TaskFileError(f"expected keys {expected}, found {sorted(prompts)}", path=path)
    blocks = _blocks()["blocks"]
    for name, prompt in prompts.items():
        if not isinstance(prompt, dict) or set(prompt) != set(BLOCK_KEYS):
            got = sorted(prompt) if isinstance(prompt, dict) else prompt
            raise TaskFileError(
                f"needs exactly the block keys {list(BLOCK_KEYS)}, got {got}", path=path, key=name
            )
        for block, variant in prompt.items():
            if variant != _N and variant not in blocks[block]:
                known = [_N, *blocks[block]]
                raise TaskFileError(
                    f"unknown variant {variant!r}; known: {known}", path=path, key=f"{name}.{block}"
                )
    return {k: dict(prompts[k]) for k in expected}


def load_config(dataset_dir: Path) -> tuple[PromptTask, dict[str, dict[str, str]]]:
    """The dataset's prompt task and config: ``prompt_config.yaml`` when present, else the defaults."""
    path = dataset_dir / "prompt_config.yaml"
    raw: dict[str, Any] = {}
    if path.exists():
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    known = find_task(dataset_dir.name)
    if "task" in raw:
        try:
            task = PromptTask.model_validate(raw["task"])
        except ValueError as exc:
            raise TaskFileError(str(exc), path=str(path), key="task") from None
    elif known is not None:
        task = PromptTask.from_task(known)
    else:
        raise TaskFileError(
            "not a MERA task folder and no 'task' section describes the dataset", path=str(path)
        )
    prompts = {k: v for k, v in raw.items() if k != "task"}
    config = validate_config(prompts, path=str(path)) if prompts else default_config(task)
    return task, config


def _question_block(task: PromptTask, lang: Lang) -> str:
    labels = _blocks()["labels"][lang]
    multi = sum(1 for k in task.media.values() if k == "audio") > 1
    lines = []
    for i, (name, kind) in enumerate(task.media.items()):
        suffix = f" {i + 1}" if multi and kind == "audio" else ""
        lines.append(f"{labels[kind]}{suffix}: <{name}>")
    if "context" in task.text:
        lines.append(f"{labels['context']}: {{context}}")
    if "question" in task.text:
        lines.append(f"{labels['question']}:\n{{question}}")
    if "annotation" in task.text:
        lines.append("{annotation}")
    return "\n".join(lines)


def _slots(task: PromptTask, lang: Lang, task_context: str | None) -> dict[str, str]:
    data = _blocks()
    words = data["media_words"][lang]
    media = list(dict.fromkeys(task.media.values()))
    description = getattr(task.description, lang)
    default_context = (
        getattr(task.context, lang) if task.context else description[:1].upper() + description[1:] + "."
    )
    options = "\n".join(f"{chr(ord('A') + i)}. {{option_{chr(ord('a') + i)}}}" for i in range(task.options))
    return {
        "description": description,
        "task_context": task_context if task_context is not None else default_context,
        "media_list": ", ".join(words[m] for m in media),
        "answer_kind": data["answer_kinds"][task.answer][lang],
        "marker": data["markers"][lang]["answer"],
        "reasoning_marker": data["markers"][lang]["reasoning"],
        "question_block": _question_block(task, lang),
        "options_block": options,
    }


def render_prompt(
    task: PromptTask, prompt: dict[str, str], *, lang: Lang = "ru", task_context: str | None = None
) -> str:
    """One prompt's text: the chosen variant of every block, in block order, one per line."""
    blocks = _blocks()["blocks"]
    slots = _slots(task, lang, task_context)
    lines = []
    for block in BLOCK_KEYS:
        variant = prompt.get(block, _N)
        if variant == _N:
            continue
        text = Template(blocks[block][variant][lang]).substitute(slots).strip()
        if text:
            lines.append(text)
    if task.answer == "MC" and prompt.get("answer_format", _N) == _N:
        lines.append(_blocks()["markers"][lang]["answer"].capitalize() + ":")
    return "\n".join(lines)


def assign_prompts(n: int, *, n_prompts: int = N_PROMPTS, seed: int = 0) -> list[int]:
    """Prompt index (0-based) per sample: every prompt used n/n_prompts times (±1), order shuffled."""
    ids = [i % n_prompts for i in range(n)]
    random.Random(seed).shuffle(ids)
    return ids
