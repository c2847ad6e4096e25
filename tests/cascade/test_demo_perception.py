"""The demo's perception data: text drawn into pictures that Tesseract reads, Russian numbers Festival
speaks."""

from __future__ import annotations

import json
from pathlib import Path

from omnieval.backends.cascade.engines import recognizer
from omnieval.backends.cascade.spec import OcrStage
from omnieval.benchmarks.demo.image_text import demo_image_text
from omnieval.benchmarks.demo.media_data import demo_audio
from omnieval.types import MediaRef


def test_generated_text_images_carry_their_answer_where_tesseract_reads_it(tmp_path: Path) -> None:
    rows = [
        json.loads(x) for x in demo_image_text(tmp_path, n=6, seed=3).read_text(encoding="utf-8").splitlines()
    ]
    assert [r["kind"] for r in rows] == ["sign", "table", "chart"] * 2
    ocr = recognizer(OcrStage(), root=tmp_path)
    for row in rows:
        text = ocr.recognise(
            MediaRef(kind="image", name="image", path=str(tmp_path / row["image"])), language=None
        )
        assert row["answer"] in text.split(), (row, text)  # every number is read as a word of its own
        if row["kind"] == "sign":
            assert "Цена:" in text and "руб." in text


def test_demo_audio_speaks_russian_with_festival_and_english_with_espeak(tmp_path: Path) -> None:
    rows = [json.loads(x) for x in demo_audio(tmp_path, n=4, seed=0).read_text(encoding="utf-8").splitlines()]
    assert [(r["lang"], r["audio_source"]) for r in rows] == [("ru", "festival"), ("en", "espeak-ng")] * 2
