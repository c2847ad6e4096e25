"""ASCII-art judging (``ascii_art_gpt4o_judge``): both texts are drawn as 224×224 images in a monospace
font and a vision judge is asked whether they show the same object (verdict yes → 1, no → 0).

The original renders with its own helper; ours draws the text black on white, keeps every space
(ASCII art is spacing), scales it to fit the square with its aspect ratio and centres it. The font is
DejaVu Sans Mono or Liberation Mono when installed, else Pillow's built-in font; the font used is
part of the judge prompt's identity (:data:`FONT_CANDIDATES`).
"""

from __future__ import annotations

import functools
import io
from pathlib import Path
from typing import Any

from omnieval.errors import MetricError
from omnieval.types import MediaRef, Sample

__all__ = ["FONT_CANDIDATES", "ascii_media", "render_ascii"]

FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
)
_DRAW_SIZE = 20
_MARGIN = 8


@functools.lru_cache(maxsize=1)
def _font() -> Any:
    from PIL import ImageFont

    for path in FONT_CANDIDATES:
        if Path(path).is_file():
            return ImageFont.truetype(path, _DRAW_SIZE)
    return ImageFont.load_default()


def render_ascii(text: str, *, size: int = 224) -> bytes:
    """PNG bytes of ``text`` drawn in a monospace font, fitted into a ``size``×``size`` white square."""
    from PIL import Image, ImageDraw

    lines = text.expandtabs(4).split("\n")
    body = "\n".join(lines) if any(line.strip() for line in lines) else " "
    probe = ImageDraw.Draw(Image.new("L", (1, 1), 255))
    left, top, right, bottom = probe.multiline_textbbox((0, 0), body, font=_font())
    width = int(max(1, right - left)) + 2 * _MARGIN
    height = int(max(1, bottom - top)) + 2 * _MARGIN
    canvas = Image.new("L", (width, height), 255)
    ImageDraw.Draw(canvas).multiline_text((_MARGIN - left, _MARGIN - top), body, font=_font(), fill=0)
    scale = min(size / width, size / height)
    fitted = canvas.resize(
        (max(1, round(width * scale)), max(1, round(height * scale))), Image.Resampling.LANCZOS
    )
    square = Image.new("RGB", (size, size), (255, 255, 255))
    square.paste(fitted.convert("RGB"), ((size - fitted.width) // 2, (size - fitted.height) // 2))
    out = io.BytesIO()
    square.save(out, format="PNG")
    return out.getvalue()


def ascii_media(sample: Sample, response: str, *, field: str | None = None) -> tuple[MediaRef, MediaRef]:
    """The response's and the reference's ASCII art as two in-memory images, in that order."""
    gold = sample.targets[0] if sample.targets and isinstance(sample.targets[0], dict) else {}
    key = field or next((k for k in gold if not str(k).startswith("##")), None)
    if key is None or key not in gold:
        raise MetricError(
            f"sample {sample.id}: no reference ASCII art (answer field {key!r}) to compare with"
        )
    return (
        MediaRef(kind="image", name="response_art", data=render_ascii(response)),
        MediaRef(kind="image", name="reference_art", data=render_ascii(str(gold[key]))),
    )
