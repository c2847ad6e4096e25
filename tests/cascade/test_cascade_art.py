"""ART with a cascade: the Russian edition with Festival's question voice, transcribed whole, then
answered."""

from __future__ import annotations

import json
from pathlib import Path

import jiwer
import pytest

from omnieval.benchmarks.art.generator import generate_art
from omnieval.errors import SourceError
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from tests.cascade.conftest import norm
from tests.engine.conftest import ScriptedBackend, read_samples

# Measured (Whisper base int8, beam 1) on 8 Russian SR questions spoken by Festival: CER of the question
# part of the transcript 0.000-0.196, mean 0.078 (the transcript also holds what Whisper makes of the sound).
QUESTION_CER_BOUND = 0.25


def test_art_runs_through_a_cascade_with_festival_speech(
    tmp_path: Path, cascade_cache: Path, echo: type[ScriptedBackend]
) -> None:
    generate_art(
        tmp_path / "art", n=2, tasks="SR", workers=1, language="ru", question_voice="festival", seed=1
    )
    rows = {
        r["id"]: r
        for r in map(json.loads, (tmp_path / "art" / "manifest.jsonl").read_text("utf-8").splitlines())
    }
    assert all(r["segments"][0]["voice"] == "festival" for r in rows.values())
    model = f"cascade/asr=whisper,beam=1,cache_dir={cascade_cache}/scripted/m"
    config = RunConfig(tasks=(f"art:{tmp_path / 'art'}",), model=model, output=tmp_path / "o", quiet=True)
    _, results = evaluate_config(config)
    records = read_samples(tmp_path / "o")
    assert len(records) == 2 and results.model_kind == "cascade"
    for record in records:
        (step,) = record["intermediates"]  # the whole audio prompt, question and stimulus, in one transcript
        question = rows[record["sample_id"]]["question"]
        heard = norm(step["text"])[: len(norm(question)) + 5]
        assert jiwer.cer(norm(question), heard) <= QUESTION_CER_BOUND, (question, step["text"])
        assert record["response"].startswith(f"[Аудио: {step['text']}]")


def test_festival_voice_is_russian_only(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="language=ru"):
        generate_art(tmp_path / "x", n=2, tasks="SR", workers=1, language="en", question_voice="festival")
