"""The demo task files: catalogue, prompts in Russian and English, and an oracle run scoring 1.0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from omnieval.prompts.render import render_messages
from omnieval.runner.resolve import resolve_tasks
from omnieval.types import ImagePart, TextPart, VideoPart

SIZES = {"demo_text": 24, "demo_image": 24, "demo_audio": 20, "demo_video": 16}


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMNIEVAL_CACHE", str(tmp_path / "cache"))


def test_demo_group_holds_the_four_tasks_with_both_languages() -> None:
    group = {t.spec.name: t for t in resolve_tasks(["demo"])}
    assert set(SIZES) <= set(group)  # other suites may tag their own demos "demo" too
    tasks = {name: group[name] for name in SIZES}
    for name, task in tasks.items():
        samples = list(task.iter_samples())
        assert len(samples) == SIZES[name]
        assert all(s.targets for s in samples)
        assert {v.id for v in task.spec.prompt.all_variants()} == {"ru", "en"}
        assert "demo" in task.spec.groups


def test_image_prompt_places_the_picture_and_blind_drops_it() -> None:
    [task] = resolve_tasks(["demo_image"])
    sample = next(iter(task.iter_samples()))
    ru, en = task.spec.prompt.all_variants()
    [msg] = render_messages(sample, task.spec, variant=ru)
    assert isinstance(msg.content, tuple) and isinstance(msg.content[0], ImagePart)
    assert isinstance(msg.content[1], TextPart) and "Сколько" in msg.content[1].text
    [blind] = render_messages(sample, task.spec, variant=en, blind=True)
    assert isinstance(blind.content, str) and "How many" in blind.content and "<image>" not in blind.content


def test_video_prompt_lists_russian_options() -> None:
    [task] = resolve_tasks(["demo_video"])
    sample = next(iter(task.iter_samples()))
    ru = task.spec.prompt.all_variants()[0]
    [msg] = render_messages(sample, task.spec, variant=ru)
    assert isinstance(msg.content, tuple) and isinstance(msg.content[0], VideoPart)
    text = msg.text
    assert "A. влево" in text and "D. вниз" in text and text.rstrip().endswith("Ответ:")


def test_oracle_scores_every_demo_task_perfectly(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "OMNIEVAL_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            ",".join(SIZES),
            "--model",
            "baseline/oracle",
            "--output",
            str(out),
            "-q",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert {name: info["score"] for name, info in results["tasks"].items()} == dict.fromkeys(SIZES, 1.0)
    assert {name: info["n"] for name, info in results["tasks"].items()} == SIZES
