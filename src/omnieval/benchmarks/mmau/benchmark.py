"""MMAU test-mini's data layout (lmms-lab/mmau, split test_mini), prompt and the authors' word match."""

from __future__ import annotations

import json
from typing import Any

from omnieval.benchmarks.hub_vqa import STRING, short_answer_spec
from omnieval.benchmarks.mmau.scoring import mmau_match
from omnieval.metrics.base import register_metric
from omnieval.sources.hub import HubBenchmark, HubRow, register_hub_benchmark, reworded
from omnieval.types import MediaRef, Sample, ScoringInput, TaskSpec

__all__ = ["BENCH", "prompt"]

_AUDIO_MAGIC = (b"RIFF", b"fLaC", b"OggS", b"ID3", b"\xff\xfb", b"\xff\xf3", b"\xff\xf2")


@register_metric("mmau.match")
def match(inp: ScoringInput) -> float:
    """1 when the answer names the right choice's words and no word only a wrong choice has."""
    choices = [str(c) for c in inp.metadata.get("choices", [])]
    return float(mmau_match(inp.response, str(inp.targets[0]), choices))


INSTRUCTION = "Choose one of these options and answer with its text:"
VARIANTS = (
    reworded("text", (INSTRUCTION, "Reply with the exact text of the correct option:")),
    reworded("which", (INSTRUCTION, "Which of these options is correct? Answer with its text:")),
)
"""Our alternative instructions (``?prompts=`` variants; MMAU publishes no prompt)."""


def prompt(question: str, choices: list[str]) -> str:
    """The question and its choices; the answer is scored by the chosen option's *words*, so the
    model is asked for the option's text (MMAU's ``evaluation.py`` publishes no prompt)."""
    listed = "\n".join(f"- {choice}" for choice in choices)
    return f"{question}\n{INSTRUCTION}\n{listed}"


def _choices(row: HubRow, sample_id: str) -> list[str]:
    value = row.get("choices")
    try:
        choices = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError:
        raise row.error("choices are not a JSON list", field="choices", sample_id=sample_id) from None
    if not isinstance(choices, list) or len(choices) < 2 or any(not isinstance(c, str) for c in choices):
        raise row.error(
            f"needs a list of at least two choices, got {value!r}", field="choices", sample_id=sample_id
        )
    return choices


def _audio(row: HubRow, sample_id: str) -> MediaRef:
    value = row.get("audio")
    data = value.get("bytes") if isinstance(value, dict) else None
    if not data:
        raise row.error("the audio is missing (no bytes)", field="audio", sample_id=sample_id)
    if not data.startswith(_AUDIO_MAGIC):
        raise row.error(
            "the audio cannot be decoded (not WAV, FLAC, Ogg or MP3)", field="audio", sample_id=sample_id
        )
    return MediaRef(kind="audio", name="audio", data=data)


def _sample(row: HubRow) -> Sample:
    sample_id = BENCH.sample_id(row)
    choices = _choices(row, sample_id)
    answer = row.get("answer")
    if not isinstance(answer, str) or not answer:
        raise row.error(
            f"the answer is empty or not a string ({answer!r})", field="answer", sample_id=sample_id
        )
    return Sample(
        id=sample_id,
        input=prompt(str(row.get("question") or ""), choices),
        targets=(answer,),
        media=(_audio(row, sample_id),),
        metadata={
            "choices": choices,
            "task": row.get("task"),
            "difficulty": row.get("difficulty"),
            "sub-category": row.get("sub-category"),
        },
    )


def _spec() -> TaskSpec:
    return short_answer_spec(
        name="mmau",
        description="MMAU test-mini: audio multiple choice, the authors' word match (evaluation.py)",
        metric="mmau.match",
        alias="accuracy",
        modality="audio",
        breakdowns=("task", "difficulty", "sub-category"),
        max_tokens=128,
        source="lmms-lab/mmau (test_mini)",
        licence="Apache-2.0 (Sakshi113/MMAU code); audio from its source datasets",
    )


def _wav(seed: int) -> bytes:
    samples = bytes([128 + (seed % 7)] * 16)
    header = b"RIFF" + (36 + len(samples)).to_bytes(4, "little") + b"WAVEfmt "
    fmt = (16).to_bytes(4, "little") + (1).to_bytes(2, "little") + (1).to_bytes(2, "little")
    fmt += (8000).to_bytes(4, "little") + (8000).to_bytes(4, "little") + (1).to_bytes(2, "little")
    fmt += (8).to_bytes(2, "little")
    return header + fmt + b"data" + len(samples).to_bytes(4, "little") + samples


def _example(position: int, config: str | None) -> dict[str, Any]:
    sets = [
        (["Man", "Woman", "Child", "Robot"], "Man", "sound"),
        (["C major", "C minor", "G major", "A minor"], "C minor", "music"),
        (["Happy", "Sad", "Angry", "Neutral"], "Sad", "speech"),
    ]
    choices, answer, task = sets[position % len(sets)]
    return {
        "id": f"mmau-{position:04d}",
        "audio": {"bytes": _wav(position), "path": f"{position}.wav"},
        "question": f"Which option fits audio {position}?",
        "choices": json.dumps(choices),
        "answer": answer,
        "dataset": "synthetic",
        "task": task,
        "split": "test-mini",
        "category": "Reasoning",
        "sub-category": ["Acoustic Source Inference", "Harmony", "Emotion"][position % 3],
        "difficulty": ["easy", "medium", "hard"][position % 3],
    }


BENCH = register_hub_benchmark(
    HubBenchmark(
        name="mmau",
        variants=VARIANTS,
        dataset="lmms-lab/mmau",
        split="test_mini",
        columns=("audio", "question", "choices", "answer", "task", "difficulty", "sub-category"),
        spec=_spec,
        to_sample=_sample,
        modality="audio",
        size=1000,
        licence="Apache-2.0 (MMAU code); audio under its source datasets' terms",
        homepage="https://sakshi113.github.io/mmau_homepage/",
        scorer="Sakshi113/MMAU@110127f54c0dfba3faa5ec9feee4a7e4148679c5:evaluation.py",
        docs="docs/benchmarks/hub/mmau.md",
        features={
            "id": STRING,
            "audio": {"sampling_rate": 192000, "_type": "Audio"},
            "question": STRING,
            "choices": STRING,
            "answer": STRING,
            "dataset": STRING,
            "task": STRING,
            "split": STRING,
            "category": STRING,
            "sub-category": STRING,
            "difficulty": STRING,
        },
        example_row=_example,
    )
)
