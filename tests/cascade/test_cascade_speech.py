"""A cascade run on real generated speech with the real packaged Whisper base (beam 1, int8, CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import jiwer

from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from tests.cascade.conftest import CLIPS, norm
from tests.engine.conftest import ScriptedBackend, read_samples

SPOKEN = {sid: (lang, text) for sid, lang, text in CLIPS}
# Measured on these clips (Whisper base int8, beam 1): Russian (Festival) CER 0.000 and 0.040, mean 0.02;
# English (espeak-ng) CER 0.179 ("The weather" heard as "but wherever") and 0.000, mean 0.09. The bounds
# leave room for CPU-dependent decoding differences, not for a broken stage (an empty transcript is CER 1).
MEAN_CER_BOUND = {"ru": 0.08, "en": 0.20}


def _config(task: Path, out: Path, cache: Path, llm: str = "scripted/m") -> RunConfig:
    model = f"cascade/asr=whisper,beam=1,cache_dir={cache}/{llm}"
    return RunConfig(tasks=(str(task),), model=model, output=out, quiet=True)


def test_transcripts_close_to_the_spoken_text_recorded_and_cached(
    speech_task: Path, cascade_cache: Path, echo: type[ScriptedBackend], tmp_path: Path
) -> None:
    _, results = evaluate_config(_config(speech_task, tmp_path / "a", cascade_cache))
    rows = {r["sample_id"]: r for r in read_samples(tmp_path / "a")}
    cers: dict[str, list[float]] = {"ru": [], "en": []}
    for sid, (lang, text) in SPOKEN.items():
        (step,) = rows[sid]["intermediates"]
        assert step["kind"] == "audio" and step["stage"] == "faster-whisper" and step["sha256"]
        cers[lang].append(jiwer.cer(norm(text), norm(step["text"])))
        wrapper = "[Аудио: " if lang == "ru" else "[Audio: "  # the wrapper follows the sample's language
        assert rows[sid]["response"].startswith(wrapper + step["text"] + "]"), rows[sid]["response"]
    for lang, values in cers.items():
        assert sum(values) / len(values) <= MEAN_CER_BOUND[lang], (lang, values)
    assert results.model_kind == "cascade"
    stage = results.backend["stages"][0]
    assert stage["model_sha256"] == "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
    assert stage["options"]["beam"] == 1 and results.backend["llm"]["provider"] == "scripted"
    assert results.tasks["speech"].recognition == {"audio": 4, "audio_empty": 0}
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["backend"]["stages"][0]["engine_version"]

    # a second text model behind the same stage: every transcript comes from the cache, none recognised again
    _, again = evaluate_config(_config(speech_task, tmp_path / "b", cascade_cache, llm="scripted/other"))
    second = {r["sample_id"]: r for r in read_samples(tmp_path / "b")}
    assert all(r["intermediates"][0]["cached"] for r in second.values())
    assert again.tasks["speech"].recognition == {"audio": 4, "audio_empty": 0}
    assert {s: r["intermediates"][0]["text"] for s, r in second.items()} == {
        s: r["intermediates"][0]["text"] for s, r in rows.items()
    }
