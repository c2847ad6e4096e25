"""Undecodable audio, silence, missing packs, spec errors and the capability check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile

from omnieval.backends import BackendOptions, accepted_modalities, create_backend
from omnieval.backends.cascade import parse_cascade
from omnieval.errors import ConfigError
from omnieval.runner import RunConfig, run
from omnieval.runner.capability import plan_capabilities
from omnieval.runner.resolve import resolve_tasks
from tests.engine.conftest import ScriptedBackend, read_samples, write_jsonl

PROVIDERS = {"hf", "openai", "scripted"}


def _audio_task(folder: Path, files: dict[str, Path]) -> Path:
    write_jsonl(folder / "a.jsonl", [{"id": k, "audio": str(v), "answer": "x"} for k, v in files.items()])
    (folder / "a.yaml").write_text(
        "name: a\nmodalities: [audio]\nlanguage: en\n"
        "source: {type: jsonl, path: a.jsonl, fields: {input: null, targets: answer, "
        'media: [{field: audio, kind: audio}]}}\nprompt: {template: "<audio> Answer."}\nmetrics: '
        "[exact_match]\n",
        encoding="utf-8",
    )
    return folder / "a.yaml"


def test_undecodable_audio_is_that_samples_error_and_silence_an_empty_transcript(
    tmp_path: Path, cascade_cache: Path, echo: type[ScriptedBackend]
) -> None:
    bad = tmp_path / "broken.wav"
    bad.write_bytes(b"RIFF\x00\x00not audio at all" * 10)
    quiet = tmp_path / "silence.wav"
    soundfile.write(quiet, np.zeros(16000, dtype="float32"), 16000)
    task = _audio_task(tmp_path, {"bad": bad, "quiet": quiet})
    from omnieval.runs.evaluation import evaluate_config

    model = f"cascade/asr=whisper,beam=1,cache_dir={cascade_cache}/scripted/m"
    _, results = evaluate_config(
        RunConfig(tasks=(str(task),), model=model, output=tmp_path / "o", quiet=True)
    )
    rows = {r["sample_id"]: r for r in read_samples(tmp_path / "o")}
    assert rows["bad"]["state"] == "error" and str(bad) in rows["bad"]["reason"]
    assert rows["quiet"]["intermediates"][0]["text"] == "" and rows["quiet"]["response"].startswith(
        "[Audio: ]"
    )
    assert results.tasks["a"].recognition == {"audio": 1, "audio_empty": 1}
    assert results.tasks["a"].states["error"] == 1


def test_audio_task_refused_for_a_text_only_model_before_any_request(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    quiet = tmp_path / "s.wav"
    soundfile.write(quiet, np.zeros(1600, dtype="float32"), 16000)
    task = _audio_task(tmp_path, {"s": quiet})
    with pytest.raises(ConfigError, match=r"a: refused: scripted/m does not take audio .*--blind"):
        run(RunConfig(tasks=(str(task),), model="scripted/m", output=tmp_path / "o", quiet=True))
    assert not scripted.calls and not (tmp_path / "o" / "samples.jsonl").exists()
    run(RunConfig(tasks=(str(task),), model="scripted/m", output=tmp_path / "b", quiet=True, blind=True))
    assert sum(scripted.calls.values()) == 1  # the blind control runs


def test_capability_plan_per_task(tmp_path: Path) -> None:
    quiet = tmp_path / "s.wav"
    soundfile.write(quiet, np.zeros(1600, dtype="float32"), 16000)
    tasks = resolve_tasks(
        (str(_audio_task(tmp_path, {"s": quiet})), "demo_image", "demo_text"), strict_metrics=False
    )
    spec = "cascade/asr=whisper/openai/x"
    accepts = accepted_modalities(spec, options=BackendOptions())
    assert accepts == {"text", "audio"}
    plans = {p.task: p.action for p in plan_capabilities(tasks, model=spec, accepts=accepts, blind=False)}
    assert plans == {"a": "run", "demo_image": "refuse", "demo_text": "run"}
    blind = {p.task: p.action for p in plan_capabilities(tasks, model=spec, accepts=accepts, blind=True)}
    assert blind == {"a": "blind", "demo_image": "blind", "demo_text": "run"}


def test_spec_inline_and_yaml(tmp_path: Path) -> None:
    spec = parse_cascade("asr=whisper:/m/w,ocr=tesseract:rus,beam=1,wrap=en/hf/a/b.gguf", providers=PROVIDERS)
    assert (
        spec.llm == "hf/a/b.gguf" and spec.asr is not None and spec.asr.model == "/m/w" and spec.asr.beam == 1
    )
    assert spec.ocr is not None and spec.ocr.langs == "rus" and spec.wrap == "en"
    (tmp_path / "c.yaml").write_text("llm: openai/x\nocr: {langs: eng, psm: 7}\n", encoding="utf-8")
    from_file = parse_cascade(str(tmp_path / "c.yaml"), providers=PROVIDERS)
    assert from_file.asr is None and from_file.ocr is not None and from_file.ocr.psm == 7
    with pytest.raises(ConfigError, match="unknown key 'bem'"):
        parse_cascade("asr=whisper,bem=1/openai/x", providers=PROVIDERS)
    with pytest.raises(ConfigError, match="no text model found"):
        parse_cascade("asr=whisper", providers=PROVIDERS)


def test_missing_language_pack_names_the_debian_package(cascade_cache: Path) -> None:
    with pytest.raises(ConfigError, match=r"apt-get install tesseract-ocr-kat"):
        create_backend(
            f"cascade/ocr=tesseract:kat,cache_dir={cascade_cache}/scripted/m", options=BackendOptions()
        )


def test_dry_run_shows_the_plan_for_a_gguf_text_model(tmp_path: Path) -> None:
    import subprocess
    import sys

    quiet = tmp_path / "s.wav"
    soundfile.write(quiet, np.zeros(1600, dtype="float32"), 16000)
    task = _audio_task(tmp_path, {"s": quiet})
    (tmp_path / "m.gguf").write_bytes(b"GGUF")  # never loaded: a GGUF file is known to be a text model
    cmd = [
        sys.executable,
        "-m",
        "omnieval",
        "run",
        "--tasks",
        f"{task},demo_text",
        "--model",
        f"hf/{tmp_path}/m.gguf",
    ]
    done = subprocess.run([*cmd, "--dry-run", "--limit", "1"], capture_output=True, text=True, timeout=120)
    out = " ".join(done.stdout.split())
    assert "a: refused:" in out and "does not take audio" in out and "demo_text: runs" in out, out[-2000:]


def test_a_shared_cascade_takes_its_text_models_options(cascade_cache: Path) -> None:
    from omnieval.backends.shared import share

    options = BackendOptions(extra={"gguf_file": "x.gguf"})
    spec = f"asr=whisper,beam=1,cache_dir={cascade_cache}/hf/{cascade_cache}"
    shared = share(create_backend(f"cascade/{spec}", options=options), gate=None)  # a Ray worker's stand-in
    assert shared.accepts() == {"text", "audio"} and shared.options.extra == {"gguf_file": "x.gguf"}
    with pytest.raises(ConfigError, match="gguf_fil"):
        create_backend(f"cascade/{spec}", options=BackendOptions(extra={"gguf_fil": "x"}))
