"""The viewer's sidecar: compressed column parts that round-trip every shown field, media files written
once per file, and (in Chromium) thumbnails that load from disk and a search served from cached text."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from omnieval.reports.html import build_report
from omnieval.reports.loading import load_run
from omnieval.reports.sidecar import CHUNK, NOT_SHOWN, SIDECAR, part_records, read_part, write_sidecar
from omnieval.reports.views import MAX_THUMBNAILS, PromptSource
from omnieval.sources.jsonl_task import jsonl_task_spec
from omnieval.testing.browser import open_page
from omnieval.testing.runs import write_synthetic_run
from omnieval.types import MediaRef, Sample

from .conftest import needs_chromium


def _png(path: Path, colour: tuple[int, int, int]) -> Path:
    from PIL import Image

    Image.new("RGB", (640, 480), colour).save(path)
    return path


def test_parts_round_trip_every_shown_field_and_are_much_smaller(tmp_path: Path) -> None:
    run = write_synthetic_run(tmp_path / "run", n_samples=1_200, seed=3)
    records = load_run(run).records
    records[5] = {
        **records[5],
        "judge_extra": {"verdict": "A", "why": "</script> http://x"},
    }  # a new field in one record only
    meta = write_sidecar(tmp_path, records, states=["ok", "error"])
    assert meta["n_chunks"] == 3 == (len(records) + CHUNK - 1) // CHUNK
    rebuilt = [r for i in range(3) for r in part_records(read_part(tmp_path / SIDECAR / f"c{i:05d}.js"))]
    shown = [{k: v for k, v in r.items() if v is not None and k not in NOT_SHOWN} for r in records]
    assert rebuilt == shown
    first = read_part(tmp_path / SIDECAR / "c00000.js")
    assert (
        "usage" not in first["cols"] and "raw_response" not in first["cols"]
    )  # never shown: left in samples.jsonl
    assert (
        "judge_extra" not in read_part(tmp_path / SIDECAR / "c00001.js")["cols"]
    )  # null in every record of that part
    sidecar = sum(p.stat().st_size for p in (tmp_path / SIDECAR).glob("c*.js"))
    assert sidecar < (run / "samples.jsonl").stat().st_size / 5


def test_a_part_that_is_not_one_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "c00000.js"
    bad.write_text('OMNI_CHUNK(0,[{"task": "t"}],null);\n')
    try:
        read_part(bad)
    except ValueError as exc:
        assert "c00000.js is not a report sample part" in str(exc)
    else:  # pragma: no cover - the assertion above is the test
        raise AssertionError("read_part accepted an old-format part")


def test_media_written_once_per_file_and_capped(tmp_path: Path) -> None:
    red = _png(tmp_path / "red.png", (200, 0, 0))
    source = PromptSource([], report_dir=tmp_path)
    first = source._media(MediaRef(kind="image", name="image", path=str(red)))
    again = source._media(MediaRef(kind="image", name="image", path=str(red)))
    assert (
        first == again
        and first is not None
        and first["src"].startswith(f"{SIDECAR}/media/")
        and first["src"].endswith(".jpg")
    )
    assert source.thumbnails == 1 and len(list((tmp_path / SIDECAR / "media").iterdir())) == 1
    from PIL import Image

    with Image.open(tmp_path / first["src"]) as thumb:
        assert max(thumb.size) == 320  # a thumbnail, not the 640 px original
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (0, 0, 200)).save(buffer, format="PNG")
    embedded = source._media(MediaRef(kind="image", name="image", data=buffer.getvalue()))
    assert embedded is not None and embedded["src"] != first["src"] and source.thumbnails == 2
    audio = source._media(MediaRef(kind="audio", name="audio", data=b"fLaC" + bytes(100)))
    assert (
        audio is not None
        and audio["src"].endswith(".flac")
        and (tmp_path / audio["src"]).read_bytes().startswith(b"fLaC")
    )
    source.thumbnails = MAX_THUMBNAILS
    blue = source._media(
        MediaRef(kind="image", name="image", path=str(_png(tmp_path / "blue.png", (0, 0, 200))))
    )
    assert (
        blue is not None and blue["src"] == "blue.png"
    )  # past the cap: linked by relative path, not thumbnailed


@dataclass
class _ImageTask:
    """A task whose samples all show one of two images (what PromptSource reads from a task)."""

    name: str
    spec: Any
    images: list[Path]

    def iter_samples(self) -> Any:
        for i in range(600):
            path = self.images[i % 2]
            yield Sample(
                id=f"{self.name}-{i:06d}",
                input=f"Что на картинке {i}?",
                media=(MediaRef(kind="image", name="image", path=str(path)),),
            )


@needs_chromium
def test_thumbnails_load_from_disk_and_search_reuses_cached_text(tmp_path: Path) -> None:
    run = write_synthetic_run(tmp_path / "run", n_samples=1_200, n_tasks=2, seed=5)
    data = tmp_path / "task.jsonl"
    data.write_text(json.dumps({"id": "0", "question": "q", "answer": "a"}) + "\n", encoding="utf-8")
    spec = jsonl_task_spec(data)
    images = [_png(tmp_path / "red.png", (200, 0, 0)), _png(tmp_path / "green.png", (0, 160, 0))]
    tasks = [_ImageTask(name, spec, images) for name in ("task_0", "task_1")]
    (run / "report.html").write_text(build_report(load_run(run), tasks=tasks), encoding="utf-8")
    assert len(list((run / SIDECAR / "media").iterdir())) == 2  # 1,200 samples, two image files
    with open_page(run / "report.html", wait_for="body[data-viewer=ready]") as probe:
        page = probe.page
        page.wait_for_function("document.querySelectorAll('article.sample img').length === 20")
        page.locator("article.sample img").nth(
            1
        ).scroll_into_view_if_needed()  # thumbnails load lazily, when in view
        page.wait_for_function(
            "[...document.querySelectorAll('article.sample img')].slice(0, 2).every(i => i.complete && "
            "i.naturalWidth === 320)"
        )
        assert "Что на картинке 0?" in page.inner_text("article.sample")
        for query, expected in (
            ("картинке 77?", 2),
            ("примере 78.", 2),
            ("картинке 599?", 2),
            ("нет такого текста", 0),
        ):
            page.evaluate("document.body.dataset.viewer = 'busy'")
            page.fill("#f-search", query)
            page.wait_for_selector("body[data-viewer=ready]", state="attached")
            assert page.inner_text("#v-count").startswith(f"{expected} of 1,200"), query
        assert probe.console_errors == [] and probe.remote_requests == []
        assert all(url.startswith("file://") for url in probe.requests)


def test_video_gets_a_frame_strip_and_a_player_copy_inside_the_report(tmp_path: Path) -> None:
    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg is not installed (make system-deps)")
    video = tmp_path / "data" / "clip.mp4"
    video.parent.mkdir()
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=96x64:rate=8",
            "-t",
            "2",
            "-pix_fmt",
            "yuv420p",
            str(video),
        ],
        check=True,
    )
    report_dir = tmp_path / "run"
    report_dir.mkdir()
    entry = PromptSource([], report_dir=report_dir)._media(
        MediaRef(kind="video", name="video", path=str(video))
    )
    assert entry is not None and entry["kind"] == "video" and entry["src"].startswith("report_samples/media/")
    # ffmpeg's default mp4 codec here is H.264: copied as it is, byte for byte (no preview needed)
    assert (report_dir / entry["src"]).read_bytes() == video.read_bytes()
    assert len(entry["frames"]) == 4 and len(set(entry["frames"])) == 4  # four different moments of the clip
    from PIL import Image

    for frame in entry["frames"]:
        with Image.open(report_dir / frame) as img:
            assert img.format == "JPEG" and max(img.size) <= 160
