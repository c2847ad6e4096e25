"""A visible overlay (text or logo) drawn the same way on images and on every video frame."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from PIL import Image, ImageDraw, ImageFont

from omnieval.errors import ConfigError, MediaError
from omnieval.types._base import Frozen

__all__ = ["Overlay", "apply_overlay", "render_overlay"]

Position = Literal["top-left", "top-right", "bottom-left", "bottom-right", "center"]


class Overlay(Frozen):
    """What to draw and where: ``scale`` is the mark's width as a share of the image's width."""

    text: str | None = None
    logo: Path | None = None
    position: Position = "bottom-right"
    scale: float = 0.25
    opacity: float = 0.5
    margin: float = 0.02
    font: Path | None = None
    """A TrueType font; by default DejaVu Sans where installed (Cyrillic), else Pillow's built-in font."""

    def check(self) -> Overlay:
        """Raise a clear error for settings that cannot give a mark."""
        if (self.text is None) == (self.logo is None):
            raise ConfigError("a visible watermark needs exactly one of --text or --logo")
        if not 0.0 < self.scale <= 1.0:
            raise ConfigError(f"watermark scale must be in (0, 1], got {self.scale}")
        if not 0.0 < self.opacity <= 1.0:
            raise ConfigError(f"watermark opacity must be in (0, 1], got {self.opacity}")
        if self.logo is not None and not self.logo.is_file():
            raise MediaError("logo file not found", path=str(self.logo))
        return self


_SYSTEM_FONTS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/TTF/DejaVuSans.ttf"),
    Path("/Library/Fonts/Arial Unicode.ttf"),
)


def _font(path: Path | None, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    chosen = path or next((p for p in _SYSTEM_FONTS if p.is_file()), None)
    if chosen is None:
        return ImageFont.load_default(size=size)
    try:
        return ImageFont.truetype(str(chosen), size=size)
    except OSError as exc:
        raise MediaError(f"unreadable font: {exc}", path=str(chosen)) from None


def _text_mark(text: str, width: int, font_path: Path | None) -> Image.Image:
    """White text with a dark outline, sized so the text spans ``width`` pixels."""
    left, top, right, bottom = _font(font_path, 100).getbbox(text, stroke_width=4)
    size = max(8, int(100 * width / max(1, right - left)))
    font = _font(font_path, size)
    stroke = max(1, size // 25)
    left, top, right, bottom = font.getbbox(text, stroke_width=stroke)
    mark = Image.new("RGBA", (int(right - left), int(bottom - top)), (0, 0, 0, 0))
    ImageDraw.Draw(mark).text(
        (-left, -top),
        text,
        font=font,
        fill=(255, 255, 255, 255),
        stroke_width=stroke,
        stroke_fill=(0, 0, 0, 255),
    )
    return mark


def _logo_mark(path: Path, width: int) -> Image.Image:
    try:
        with Image.open(path) as opened:
            logo = opened.convert("RGBA")
    except (OSError, ValueError) as exc:
        raise MediaError(f"unreadable logo: {exc}", path=str(path)) from None
    height = max(1, round(logo.height * width / logo.width))
    return logo.resize((width, height), Image.Resampling.LANCZOS)


def render_overlay(overlay: Overlay, size: tuple[int, int]) -> Image.Image:
    """The full-size RGBA layer for an image of ``size``; rendered once per video, reused per frame."""
    width = max(1, round(size[0] * overlay.scale))
    mark = (
        _text_mark(overlay.text, width, overlay.font)
        if overlay.text is not None
        else _logo_mark(overlay.logo, width)  # type: ignore[arg-type]
    )
    alpha = mark.getchannel("A").point(lambda a: round(a * overlay.opacity))
    mark.putalpha(alpha)
    margin = round(min(size) * overlay.margin)
    free_x, free_y = max(0, size[0] - mark.width), max(0, size[1] - mark.height)
    x = {"left": margin, "right": free_x - margin, "center": free_x // 2}
    y = {"top": margin, "bottom": free_y - margin, "center": free_y // 2}
    vertical, _, horizontal = overlay.position.partition("-")
    layer = Image.new("RGBA", size, (0, 0, 0, 0))
    layer.alpha_composite(
        mark.crop((0, 0, min(mark.width, size[0]), min(mark.height, size[1]))),
        (max(0, x[horizontal or "center"]), max(0, y[vertical])),
    )
    return layer


def apply_overlay(img: Image.Image, layer: Image.Image) -> Image.Image:
    """Composite a rendered layer; keeps the image's mode family (RGB stays RGB, RGBA keeps alpha)."""
    base = img.convert("RGBA")
    base.alpha_composite(layer)
    return base if img.mode in ("RGBA", "LA", "P") and "A" in img.getbands() else base.convert("RGB")
