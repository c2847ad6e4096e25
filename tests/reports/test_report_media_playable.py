"""Report media play in Chromium and live inside the run folder: a moved run still shows them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from omnieval.testing.browser import open_page

READY = """async (kind) => {
  const el = document.querySelector(`article.sample ${kind}`);
  el.preload = "auto"; el.load();
  for (let i = 0; i < 100 && el.readyState < 2 && !el.error; i++) await new Promise(r => setTimeout(r, 50));
  return {ready: el.readyState, error: el.error ? el.error.code : null, src: el.getAttribute("src")};
}"""


def test_video_and_audio_play_from_a_moved_run_folder(tmp_path: Path) -> None:
    run = tmp_path / "run"
    env = {**os.environ, "OMNIEVAL_CACHE": str(tmp_path / "cache")}
    cmd = [
        sys.executable,
        "-m",
        "omnieval",
        "run",
        "--tasks",
        "demo_video,demo_audio",
        "--model",
        "baseline/oracle",
    ]
    done = subprocess.run(
        [*cmd, "--limit", "2", "--output", str(run), "-q"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    moved = tmp_path / "elsewhere" / "run"
    moved.parent.mkdir()
    shutil.move(run, moved)
    shutil.rmtree(
        tmp_path / "cache"
    )  # the generated data is gone too: the report needs nothing outside its folder
    with open_page(moved / "report.html", wait_for="body[data-viewer=ready]") as probe:
        page = probe.page
        for kind, task in (("video", "demo_video"), ("audio", "demo_audio")):
            page.select_option("#f-task", label=task)
            page.wait_for_selector(f"article.sample {kind}")
            state = page.evaluate(READY, kind)
            assert state["error"] is None and state["ready"] >= 2, state
            assert state["src"].startswith("report_samples/media/"), state
        assert probe.console_errors == [] and probe.remote_requests == []
    media = sorted(p.name for p in (moved / "report_samples" / "media").iterdir())
    assert any(name.endswith("-preview.mp4") for name in media)  # MPEG-4 Part 2 → H.264 preview
    assert any(name.endswith(".wav") for name in media)
