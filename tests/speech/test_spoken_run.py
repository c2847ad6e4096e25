"""Spoken answers through a whole run: kept by content hash, checked, heard, scored, cached, re-scored.

The bad-input cases need no recogniser (a failed check stops before it). The end-to-end case speaks two
short Russian sentences with Festival and hears them with the real packaged Whisper base; it needs the
real components (extra ``cascade``, Debian festival festvox-ru), installed by ``make test``.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile

from omnieval import api
from omnieval.backends import tts
from omnieval.media.spoken import pcm16_wav
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.types import AudioAnswer, Response
from tests.engine.conftest import ScriptedBackend, read_samples, write_jsonl

RATE = 16000


def _wav(signal: np.ndarray, rate: int = RATE) -> bytes:
    buf = io.BytesIO()
    soundfile.write(buf, signal.astype("float32"), rate, format="WAV", subtype="PCM_16")
    return buf.getvalue()


def _tone(seconds: float = 0.5, amplitude: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    return amplitude * np.sin(2 * np.pi * 440 * t)


def _task(folder: Path, texts: dict[str, str], *, metrics: str = "[intelligibility, cer]") -> Path:
    write_jsonl(folder / "say.jsonl", [{"id": k, "text": v} for k, v in texts.items()])
    (folder / "say.yaml").write_text(
        "name: say\nmodalities: [text]\nlanguage: ru\n"
        "source: {type: jsonl, path: say.jsonl, fields: {input: text, targets: text}}\n"
        f'prompt: {{template: "{{{{ input }}}}"}}\nparser: {{name: strip}}\nmetrics: {metrics}\n',
        encoding="utf-8",
    )
    return folder / "say.yaml"


BAD = {
    "empty": AudioAnswer.of(b""),
    "undecodable": AudioAnswer.of(b"RIFF....not a wav at all" * 4),
    "silent": AudioAnswer.of(_wav(np.zeros(RATE // 2))),
    "clipped": AudioAnswer.of(_wav(np.clip(_tone(amplitude=3.0), -1, 1))),
    "wrong_sample_rate": AudioAnswer.of(_wav(_tone()), sample_rate=24000),
    "stream_cut": AudioAnswer.of(pcm16_wav(b"\x10\x20" * 4000, sample_rate=RATE), complete=False),
}


def test_bad_audio_is_a_counted_error_with_its_cause_never_a_match(
    scripted: type[ScriptedBackend], tmp_path: Path
) -> None:
    task = _task(tmp_path, {k: "Кот спит." for k in BAD})
    scripted.answer = staticmethod(lambda r: Response(audio=BAD[r.sample_id]))
    _, results = evaluate_config(
        RunConfig(tasks=(str(task),), model="scripted/m", output=tmp_path / "o", quiet=True)
    )
    rows = {r["sample_id"]: r for r in read_samples(tmp_path / "o")}
    for cause, row in rows.items():
        assert row["state"] == "error" and row["audio"]["problem"] == cause, row
        assert row["reason"].startswith(f"spoken answer {cause}: "), row["reason"]
        assert row["metrics"] == {"intelligibility": 0.0, "cer": 1.0}  # the worst value, never a match
        assert row["audio"]["transcript"] is None and row["response"] == ""
    assert results.tasks["say"].states["error"] == len(BAD)
    assert results.tasks["say"].metrics["cer"] == 1.0
    assert "dBFS" in rows["silent"]["audio"]["detail"]
    assert "declared 24000 Hz" in rows["wrong_sample_rate"]["audio"]["detail"]
    # every file is kept, named by its content hash
    for row in rows.values():
        data = (tmp_path / "o" / row["audio"]["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == row["audio"]["sha256"]


def test_festival_spoken_kept_heard_scored_cached_and_rescored(
    speech_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMNIEVAL_CACHE", str(speech_cache))
    task = _task(tmp_path, {"a": "Кошка спит на окне.", "b": "В классе 25 учеников."})
    first = tmp_path / "first"
    _, results = evaluate_config(
        RunConfig(tasks=(str(task),), model="tts/festival", output=first, quiet=True)
    )
    rows = {r["sample_id"]: r for r in read_samples(first)}
    for row in rows.values():
        audio = row["audio"]
        assert row["state"] == "ok" and audio["problem"] is None and audio["transcript"] == row["response"]
        data = (first / audio["path"]).read_bytes()
        assert audio["path"] == f"audio/{hashlib.sha256(data).hexdigest()[:16]}.wav"
        assert audio["sample_rate"] == 16000 and audio["duration_s"] == pytest.approx(
            soundfile.info(io.BytesIO(data)).duration, abs=0.01
        )
        assert audio["measures"]["first_audio_s"] > 0 and audio["measures"]["speaking_rate_cps"] > 0
        assert row["metrics"]["cer"] < 0.3, row  # Festival's Russian is intelligible to Whisper base
    assert results.tasks["say"].metrics["cer"] < 0.3
    manifest = json.loads((first / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["speech_recognition"]["engine"] == "faster-whisper"
    assert manifest["speech_recognition"]["model_sha256"].startswith("d01c3014")
    report = api.report(first).read_text(encoding="utf-8")
    assert all(f'<audio controls preload="none" src="{r["audio"]["path"]}">' in report for r in rows.values())

    # a second run on the first one's response cache: nothing is synthesised, the same audio heard again
    def no_synthesis(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("synthesised on a cache hit")

    monkeypatch.setattr(tts, "synthesize", no_synthesis)
    second = tmp_path / "second"
    config = RunConfig(
        tasks=(str(task),), model="tts/festival", output=second, quiet=True, cache_path=first / "cache.sqlite"
    )
    _, again = evaluate_config(config)
    rows2 = {r["sample_id"]: r for r in read_samples(second)}
    assert all(r["cached"] and r["state"] == "ok" for r in rows2.values())
    assert {k: r["audio"]["sha256"] for k, r in rows2.items()} == {
        k: r["audio"]["sha256"] for k, r in rows.items()
    }
    assert again.tasks["say"].metrics == results.tasks["say"].metrics

    # re-scoring from the records keeps the spoken answer and its score
    rescored = api.score(first)
    assert rescored.results.tasks["say"].metrics == results.tasks["say"].metrics
    assert all(r["audio"] for r in read_samples(first))


def test_a_speaking_cascade_reads_the_text_models_answer_aloud(
    scripted: type[ScriptedBackend], speech_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMNIEVAL_CACHE", str(speech_cache))
    task = _task(tmp_path, {"a": "Кошка спит на окне."})
    scripted.answer = staticmethod(lambda r: "Кошка спит на окне.")
    out = tmp_path / "o"
    config = RunConfig(tasks=(str(task),), model="cascade/tts=festival/scripted/m", output=out, quiet=True)
    _, results = evaluate_config(config)
    (row,) = read_samples(out)
    assert row["state"] == "ok" and row["audio"]["provider_transcript"] == "Кошка спит на окне."
    assert row["response"] == row["audio"]["transcript"] and row["metrics"]["cer"] < 0.3
    assert results.backend["tts"] == "festival"


@pytest.mark.parametrize(("streamed", "fault"), [(False, None), (True, None), (True, "cut")])
def test_openai_spoken_answers_whole_and_streamed_against_the_fake(
    streamed: bool, fault: str | None, speech_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omnieval.backends import BackendOptions
    from omnieval.testing.fake_openai import FakeOpenAI

    monkeypatch.setenv("OMNIEVAL_CACHE", str(speech_cache))
    task = _task(tmp_path, {"a": "Кошка спит на окне."})
    audio = {"voice": "alloy", "format": "pcm16" if streamed else "wav", "stream": streamed}
    server = FakeOpenAI(default_answer="Кошка спит на окне.", audio_fault=fault)
    with server.in_thread():
        options = BackendOptions(base_url=server.url, api_key="k", extra={"audio": audio})
        config = RunConfig(
            tasks=(str(task),), model="openai/fake", output=tmp_path / "o", quiet=True, backend=options
        )
        evaluate_config(config)
    (row,) = read_samples(tmp_path / "o")
    assert row["audio"]["provider_transcript"] == "Кошка спит на окне."
    if fault == "cut":
        assert row["state"] == "error" and row["audio"]["problem"] == "stream_cut"
        assert row["metrics"]["cer"] == 1.0
        return
    assert row["state"] == "ok" and row["metrics"]["cer"] < 0.3, row
    assert row["audio"]["sample_rate"] == (24000 if streamed else 16000)
    if streamed:  # the first chunk came before the whole answer
        assert 0 < row["audio"]["measures"]["first_audio_s"] <= row["latency_s"]


def test_gemini_answers_by_voice_against_the_fake(
    speech_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omnieval.backends import BackendOptions
    from omnieval.testing.fake_gemini import FakeGemini

    monkeypatch.setenv("OMNIEVAL_CACHE", str(speech_cache))
    task = _task(tmp_path, {"a": "Кошка спит на окне.", "b": "Кот спит."})
    server = FakeGemini(answer="Кошка спит на окне.")
    with server.in_thread():
        options = BackendOptions(base_url=server.url, api_key="k", extra={"speech_voice": "Kore"})
        config = RunConfig(
            tasks=(str(task),), model="gemini/fake", output=tmp_path / "o", quiet=True, backend=options
        )
        evaluate_config(config)
    (_, body), *_ = server.requests
    assert body["generationConfig"]["responseModalities"] == ["AUDIO"]
    assert "Kore" in json.dumps(body["generationConfig"]["speechConfig"])  # the SDK names the keys
    rows = {r["sample_id"]: r for r in read_samples(tmp_path / "o")}
    assert rows["a"]["state"] == "ok" and rows["a"]["metrics"]["cer"] < 0.3
    assert rows["a"]["audio"]["format"] == "wav" and rows["a"]["audio"]["sample_rate"] == 24000
    assert rows["b"]["metrics"]["cer"] > rows["a"]["metrics"]["cer"]  # it said the other sentence
