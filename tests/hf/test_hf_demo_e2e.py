"""``omnieval run`` with ``hf/<tiny LLaVA>`` on the generated demo tasks, end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def _run(tmp_path: Path, model_dir: Path, tasks: str) -> list[dict[str, object]]:
    out = tmp_path / "run"
    env = {**os.environ, "OMNIEVAL_CACHE": str(tmp_path / "cache")}
    cmd = [
        sys.executable,
        "-m",
        "omnieval",
        "run",
        "--tasks",
        tasks,
        "--model",
        f"hf/{model_dir}",
        "--limit",
        "4",
        "--batch-size",
        "4",
        "--output",
        str(out),
        "-q",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240, check=False)
    # the run itself must succeed: some samples failing (audio on an image model) is counted, not fatal
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    for name in tasks.split(","):  # results.json counts exactly the records written
        states = results["tasks"][name]["states"]
        assert sum(states.values()) == sum(1 for r in rows if r["task"] == name), states
    return rows


def test_tiny_llava_answers_image_demo_and_rejects_audio(llava_dir: Path, tmp_path: Path) -> None:
    rows = _run(tmp_path, llava_dir, "demo_image")
    image = [r for r in rows if r["task"] == "demo_image"]
    assert len(image) == 4
    # random weights answer nonsense, but every image sample went through the model
    assert all(r["state"] in ("ok", "parse_failed", "truncated") for r in image), [r["reason"] for r in image]
    assert all(r["media_policy"] for r in image), image[0]
    # its processor has no audio part: the audio task is refused before any request (known from the processor)
    out = tmp_path / "refused"
    cmd = [
        sys.executable,
        "-m",
        "omnieval",
        "run",
        "--tasks",
        "demo_image,demo_audio",
        "--model",
        f"hf/{llava_dir}",
    ]
    cmd += ["--limit", "1", "--output", str(out), "-q"]
    env = {**os.environ, "OMNIEVAL_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240, check=False, env=env)
    assert (
        done.returncode != 0 and "demo_audio: refused" in done.stderr and "does not take audio" in done.stderr
    )
    assert not (tmp_path / "refused" / "samples.jsonl").exists()


def test_tiny_qwen2_audio_answers_audio_demo(qwen2_audio_dir: Path, tmp_path: Path) -> None:
    rows = _run(tmp_path, qwen2_audio_dir, "demo_audio")
    assert len(rows) == 4
    assert all(r["state"] in ("ok", "parse_failed", "truncated") for r in rows), [r["reason"] for r in rows]
    # espeak-ng clips are 22.05 kHz and beeps 16 kHz: both reach the model at its extractor's 16 kHz
    assert all(r["media_policy"]["audio"]["sample_rate"] == 16000 for r in rows), rows[0]["media_policy"]
