"""OCR of rendered Russian text through the cascade's Tesseract stage."""

from __future__ import annotations

import asyncio
from pathlib import Path

import jiwer
from PIL import Image, ImageDraw, ImageFont

from omnieval.backends import BackendOptions, create_backend
from omnieval.types import ImagePart, MediaRef, Message, Request, TextPart
from tests.cascade.conftest import norm
from tests.engine.conftest import ScriptedBackend

TEXT = "Цена билета 450 рублей. Вход с 9 до 18 часов."
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def test_rendered_russian_text_is_read_in_place_and_cached(
    tmp_path: Path, cascade_cache: Path, echo: type[ScriptedBackend]
) -> None:
    img = Image.new("RGB", (640, 60), "white")
    ImageDraw.Draw(img).text((10, 15), TEXT, fill="black", font=ImageFont.truetype(FONT, 22))
    img.save(tmp_path / "sign.png")
    backend = create_backend(
        f"cascade/ocr=tesseract:rus+eng,cache_dir={cascade_cache}/scripted/m", options=BackendOptions()
    )
    ref = MediaRef(kind="image", name="image", path=str(tmp_path / "sign.png"))
    request = Request(
        task="t",
        sample_id="1",
        language="ru",
        messages=(
            Message(role="user", content=(TextPart(text="Q: "), ImagePart(media=ref), TextPart(text=" ?"))),
        ),
    )
    first = asyncio.run(backend.generate(request))
    (step,) = first.extra["cascade"]
    # measured CER 0.000 at 22 px DejaVu Sans (the note: 18–24 px is read exactly)
    assert jiwer.cer(norm(TEXT), norm(step["text"])) <= 0.03, step["text"]
    assert first.text == f"Q: [Текст на изображении: {step['text']}] ?"
    again = asyncio.run(backend.generate(request))
    assert again.extra["cascade"][0]["cached"] and not step["cached"]
    assert backend.recognised == 1
