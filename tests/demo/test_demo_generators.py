"""Demo data generators: every answer re-derived independently from the written files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile
from PIL import Image

from omnieval.benchmarks.demo import media_data
from omnieval.benchmarks.demo.media_data import DIRECTIONS, demo_audio, demo_video
from omnieval.benchmarks.demo.text_image import demo_image, demo_text
from omnieval.errors import SourceError
from omnieval.sources.plugins import generators


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_generators_are_registered() -> None:
    for name in ("demo.text", "demo.image", "demo.audio", "demo.video"):
        assert name in generators


def test_text_answers_are_the_arithmetic(tmp_path: Path) -> None:
    rows = _rows(demo_text(tmp_path, n=30, seed=3))
    assert len(rows) == 30 and len({r["id"] for r in rows}) == 30
    for row in rows:
        a, op, b = row["question"].split()
        expected = {"+": int(a) + int(b), "-": int(a) - int(b), "×": int(a) * int(b)}[op]
        assert row["answer"] == str(expected)
    assert {r["op"] for r in rows} == {"+", "-", "×"}
    assert _rows(demo_text(tmp_path / "again", n=30, seed=3)) == rows  # deterministic


def _count_shapes(img: Image.Image) -> tuple[int, int]:
    """Independent count: a 4×4 grid cell holds a shape if its centre is coloured; squares fill corners."""
    px = img.convert("RGB").load()
    cell = img.width // 4
    circles = squares = 0
    for slot in range(16):
        x0, y0 = (slot % 4) * cell + 6, (slot // 4) * cell + 6
        centre = px[x0 + (cell - 12) // 2, y0 + (cell - 12) // 2]
        if centre == (255, 255, 255):
            continue
        corner = px[x0 + 2, y0 + 2]
        if corner == (255, 255, 255):
            circles += 1
        else:
            squares += 1
    return circles, squares


def test_image_answers_match_the_pictures(tmp_path: Path) -> None:
    path = demo_image(tmp_path, n=12, seed=1)
    rows = _rows(path)
    assert {r["shape"] for r in rows} == {"circle", "square"}
    for row in rows:
        circles, squares = _count_shapes(Image.open(path.parent / row["image"]))
        assert (circles, squares) == (row["circles"], row["squares"])
        assert row["answer"] == str(circles if row["shape"] == "circle" else squares)
        assert row["shape_ru"] in ("кругов", "квадратов")


def _onsets(wav: Path) -> int:
    """Beeps are 0.12 s tones with 0.18 s gaps: count runs of 10-ms frames with energy."""
    data, rate = soundfile.read(wav)
    frame = rate // 100
    energy = np.array([np.abs(data[i : i + frame]).max() for i in range(0, len(data) - frame, frame)])
    on = energy > 0.05
    return int(on[0]) + int(np.sum(on[1:] & ~on[:-1]))


def test_audio_falls_back_to_counted_beeps_without_espeak(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(media_data.shutil, "which", lambda _name: None)
    path = demo_audio(tmp_path, n=6, seed=2)
    rows = _rows(path)
    assert {r["audio_source"] for r in rows} == {"tones"}
    assert {r["lang"] for r in rows} == {"ru", "en"}
    for row in rows:
        assert _onsets(path.parent / row["audio"]) == int(row["answer"])
        assert "сигнал" in row["question_ru"] and "beeps" in row["question_en"]


def test_audio_espeak_required_but_missing_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(media_data.shutil, "which", lambda _name: None)
    with pytest.raises(SourceError, match="espeak-ng"):
        demo_audio(tmp_path, n=2, voice="espeak")
    with pytest.raises(SourceError, match="voice"):
        demo_audio(tmp_path, n=2, voice="robot")


@pytest.mark.skipif(media_data.shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
def test_audio_speaks_numbers_with_espeak(tmp_path: Path) -> None:
    path = demo_audio(tmp_path, n=2, seed=0, voice="espeak")
    for row in _rows(path):
        data, rate = soundfile.read(path.parent / row["audio"])
        assert row["audio_source"] == "espeak-ng" and 1 <= int(row["answer"]) <= 20
        assert len(data) / rate > 0.2 and np.abs(data).max() > 0.01


def _red_centre(frame: np.ndarray) -> tuple[float, float]:
    mask = (frame[:, :, 0] > 150) & (frame[:, :, 1] < 110) & (frame[:, :, 2] < 110)
    ys, xs = np.nonzero(mask)
    return float(xs.mean()), float(ys.mean())


def test_video_direction_matches_the_motion(tmp_path: Path) -> None:
    import av

    path = demo_video(tmp_path, n=8, seed=4)
    rows = _rows(path)
    assert sorted(r["direction"] for r in rows) == sorted([d for d, _ in DIRECTIONS] * 2)
    for row in rows:
        with av.open(str(path.parent / row["video"])) as container:
            frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
        assert len(frames) == 16
        (x0, y0), (x1, y1) = _red_centre(frames[0]), _red_centre(frames[-1])
        dx, dy = x1 - x0, y1 - y0
        seen = ("right" if dx > 0 else "left") if abs(dx) > abs(dy) else ("down" if dy > 0 else "up")
        assert seen == row["direction"]
        assert row["answer"] == "ABCD"[[d for d, _ in DIRECTIONS].index(seen)]


def test_bad_count_names_generator_and_option(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"demo.image: n must be"):
        demo_image(tmp_path, n=0)
