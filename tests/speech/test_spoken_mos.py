"""The optional metric ``mos``: the hearing measures DNSMOS when a task scores it, the metric maps the
record's overall estimate onto [0, 1], and a missing predictor is a clear error naming the extra. The
predictor itself (extra ``speech-mos``, not installed by ``make test``: numba compiles librosa for ~30 s
on first use) is measured on Festival against noise by ``benchmarks/speech_mos.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from omnieval import api
from omnieval.backends import tts
from omnieval.errors import ConfigError
from omnieval.media import spoken
from omnieval.metrics.library.speech import mos
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.types import AudioAnswer, Response, ScoringInput, SpokenAudio
from tests.engine.conftest import ScriptedBackend, read_samples
from tests.speech.test_spoken_run import _task, _wav


def _heard(**measures: float) -> ScoringInput:
    audio = SpokenAudio(path="audio/x.wav", sha256="0" * 64, format="wav", measures=measures)
    return ScoringInput(response="кот", targets=("кот",), audio=audio)


def test_mos_maps_the_overall_estimate_onto_the_unit_range() -> None:
    assert mos(_heard(dnsmos_ovrl=3.0)) == pytest.approx(0.5)
    assert mos(_heard(dnsmos_ovrl=5.0)) == 1.0 and mos(_heard(dnsmos_ovrl=1.0)) == 0.0
    with pytest.raises(ValueError, match="no DNSMOS estimate"):
        mos(ScoringInput(response="кот", targets=("кот",)))  # a text answer has nothing to rate


def test_a_missing_predictor_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "speechmos", None)  # as if not installed
    with pytest.raises(ConfigError, match="extra 'speech-mos'"):
        spoken.quality_estimate(np.zeros(16000, dtype="float32"))


def test_a_task_scoring_mos_has_its_answers_rated_and_rescored(
    scripted: type[ScriptedBackend], speech_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMNIEVAL_CACHE", str(speech_cache))
    rated: list[np.ndarray] = []

    def loudness_as_quality(samples: np.ndarray) -> dict[str, float]:  # stands in for DNSMOS
        rated.append(samples)
        return {"dnsmos_ovrl": round(1.0 + 4.0 * min(1.0, 10 * float(np.sqrt(np.mean(samples**2)))), 3)}

    monkeypatch.setattr(spoken, "quality_estimate", loudness_as_quality)
    wav = tts.synthesize("Кошка спит на окне.", engine="festival", language="ru")
    scripted.answer = staticmethod(lambda r: Response(audio=AudioAnswer.of(wav)))
    task = _task(tmp_path, {"a": "Кошка спит на окне."}, metrics="[intelligibility, cer, mos]")
    _, results = evaluate_config(
        RunConfig(tasks=(str(task),), model="scripted/m", output=tmp_path / "o", quiet=True)
    )
    (row,) = read_samples(tmp_path / "o")
    (samples,) = rated  # the 16 kHz clip the recogniser hears
    assert samples.size == pytest.approx(row["audio"]["duration_s"] * 16000, abs=160)
    ovrl = row["audio"]["measures"]["dnsmos_ovrl"]
    assert row["state"] == "ok" and row["metrics"]["mos"] == pytest.approx((ovrl - 1) / 4)
    assert results.tasks["say"].metrics["mos"] == pytest.approx((ovrl - 1) / 4)
    assert api.score(tmp_path / "o").results.tasks["say"].metrics["mos"] == pytest.approx((ovrl - 1) / 4)


def test_a_run_scoring_mos_without_the_predictor_stops_naming_the_extra(
    scripted: type[ScriptedBackend], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "speechmos", None)
    tone = np.sin(2 * np.pi * 440 * np.arange(8000) / 16000) * 0.3
    scripted.answer = staticmethod(lambda r: Response(audio=AudioAnswer.of(_wav(tone))))
    task = _task(tmp_path, {"a": "Кот спит."}, metrics="[cer, mos]")
    with pytest.raises(ConfigError, match="extra 'speech-mos'"):
        evaluate_config(RunConfig(tasks=(str(task),), model="scripted/m", output=tmp_path / "o", quiet=True))
