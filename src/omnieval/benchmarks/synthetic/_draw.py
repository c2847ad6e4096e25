"""Drawing helpers shared by the image and video suites: a named palette, fonts, saving.

Shapes are drawn without anti-aliasing and saved as PNG, so every pixel of a shape has exactly its
palette colour (what the tests' independent evaluators rely on). Text needs a TrueType font with
Cyrillic: DejaVu Sans is looked up in the usual system folders (package ``fonts-dejavu-core``), or
``font=PATH`` names one.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import subprocess
from pathlib import Path
from typing import Any, NamedTuple

from omnieval.errors import SourceError

__all__ = ["PALETTE", "Colour", "draw_text", "find_font", "font_id", "load_font", "save_png"]


class Colour(NamedTuple):
    """A palette colour with its name in both languages (Russian: masculine nominative, genitive plural,
    genitive singular) so questions agree grammatically."""

    key: str
    rgb: tuple[int, int, int]
    en: str
    ru: str
    ru_gen_pl: str
    ru_gen_sg: str


PALETTE = (
    Colour("red", (220, 30, 30), "red", "красный", "красных", "красного"),
    Colour("blue", (30, 70, 220), "blue", "синий", "синих", "синего"),
    Colour("green", (20, 150, 40), "green", "зелёный", "зелёных", "зелёного"),
    Colour("yellow", (230, 220, 0), "yellow", "жёлтый", "жёлтых", "жёлтого"),
    Colour("purple", (140, 40, 190), "purple", "фиолетовый", "фиолетовых", "фиолетового"),
    Colour("orange", (250, 120, 0), "orange", "оранжевый", "оранжевых", "оранжевого"),
)
"""Colours far apart in RGB (min distance > 90), none close to white, black or grey."""

_FONT_DIRS = (
    "/usr/share/fonts/truetype/dejavu",  # Debian, Ubuntu
    "/usr/share/fonts/dejavu",  # Fedora
    "/usr/share/fonts/TTF",  # Arch
    "/usr/local/share/fonts",
    "/Library/Fonts",
)


@functools.lru_cache(maxsize=8)
def find_font(path: str | None = None, *, bold: bool = False) -> Path:
    """A TrueType font with Cyrillic glyphs: ``path`` if given, else DejaVu Sans from the system."""
    if path is not None:
        font = Path(path).expanduser()
        if not font.is_file():
            raise SourceError("font file not found", path=str(font), field="font")
        return font
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in _FONT_DIRS:
        if (Path(folder) / name).is_file():
            return Path(folder) / name
    found = _fc_match("DejaVu Sans:bold" if bold else "DejaVu Sans")
    if found is not None:
        return found
    raise SourceError(
        "no font with Cyrillic found: install DejaVu (apt-get install fonts-dejavu-core) or pass font=PATH",
        field="font",
    )


def _fc_match(pattern: str) -> Path | None:
    exe = shutil.which("fc-match")
    if exe is None:
        return None
    done = subprocess.run([exe, "-f", "%{file}", pattern], capture_output=True, text=True, check=False)
    file = Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None
    return file if file is not None and file.name.startswith("DejaVuSans") and file.is_file() else None


@functools.lru_cache(maxsize=64)
def load_font(path: Path, size: int) -> Any:
    """A Pillow FreeType font (cached: loading is the slow part of drawing text)."""
    from PIL import ImageFont

    return ImageFont.truetype(str(path), size)


@functools.lru_cache(maxsize=8)
def font_id(path: Path) -> str:
    """``name@sha256-prefix`` of a font file: provenance, since glyph shapes differ across versions."""
    return f"{path.name}@{hashlib.sha256(path.read_bytes()).hexdigest()[:12]}"


def save_png(img: Any, path: Path) -> None:
    """Save without metadata chunks, so identical pictures give identical bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, format="PNG", optimize=False, compress_level=6)


def draw_text(
    draw: Any,
    xy: tuple[float, float],
    text: str,
    *,
    size: int,
    font: Path,
    anchor: str = "mm",
    fill: tuple[int, int, int] = (0, 0, 0),
) -> None:
    """Text at ``xy`` (Pillow anchor, centred by default) in ``font`` at ``size`` pixels."""
    draw.text(xy, text, font=load_font(font, size), fill=fill, anchor=anchor)
