"""``clocks``: analogue clock faces; read the time as ``H:MM`` (task ``clocks_time``).

Easy: quarter hours, numerals; medium: five-minute steps, numerals; hard: any minute, minute ticks
only. The hour hand is wider than the minute hand and both have their own colour, so each stays
visible when they overlap. The hour hand moves with the minutes (30° per hour + 0.5° per minute).
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

from omnieval.benchmarks.synthetic._core import MakeItem, build_set, resolve_options
from omnieval.benchmarks.synthetic._draw import draw_text, find_font, font_id, save_png
from omnieval.sources.plugins import register_generator

__all__ = ["FACE", "HOUR_RGB", "MINUTE_RGB", "clocks", "hand_angles"]

VERSION = "1"
FACE = {"side": 256, "cx": 128, "cy": 128, "radius": 112}
HOUR_RGB = (10, 30, 120)
MINUTE_RGB = (200, 20, 20)
_HANDS = {"hour": (0.5, 9, HOUR_RGB), "minute": (0.82, 4, MINUTE_RGB)}  # length / radius, width, colour


def hand_angles(hour: int, minute: int) -> tuple[float, float]:
    """Clockwise angles from 12 o'clock, in degrees, of the hour and minute hands."""
    return 30.0 * (hour % 12) + 0.5 * minute, 6.0 * minute


def _tip(angle: float, length: float) -> tuple[float, float]:
    rad = math.radians(angle)
    return FACE["cx"] + length * math.sin(rad), FACE["cy"] - length * math.cos(rad)


def draw_clock(hour: int, minute: int, *, numerals: bool, minute_ticks: bool, font: Path) -> Any:
    from PIL import Image, ImageDraw

    side, cx, cy, r = FACE["side"], FACE["cx"], FACE["cy"], FACE["radius"]
    img = Image.new("RGB", (side, side), "white")
    draw = ImageDraw.Draw(img)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(250, 250, 245), outline=(0, 0, 0), width=4)
    for tick in range(60):
        if tick % 5 and not minute_ticks:
            continue
        inner = r - (14 if tick % 5 == 0 else 7)
        draw.line(
            (*_tip(tick * 6, inner), *_tip(tick * 6, r - 3)), fill=(0, 0, 0), width=3 if tick % 5 == 0 else 1
        )
    if numerals:
        for h in range(1, 13):
            draw_text(draw, _tip(h * 30, r - 30), str(h), size=20, font=font)
    for name, angle in zip(("hour", "minute"), hand_angles(hour, minute), strict=True):
        length, width, colour = _HANDS[name]
        draw.line((cx, cy, *_tip(angle, length * r)), fill=colour, width=width)
    draw.ellipse((cx - 7, cy - 7, cx + 7, cy + 7), fill=(90, 90, 90))
    return img


def _make_item(font: Path) -> MakeItem:
    def make(index: int, rng: random.Random, level: str, lang: str, set_dir: Path) -> dict[str, Any]:
        hour = rng.randint(1, 12)
        step = {"easy": 15, "medium": 5, "hard": 1}[level]
        minute = step * rng.randrange(60 // step)
        rel = f"images/{index:05d}.png"
        save_png(
            draw_clock(hour, minute, numerals=level != "hard", minute_ticks=level != "easy", font=font),
            set_dir / rel,
        )
        question = (
            "Какое время показывают часы? Ответьте в формате Ч:ММ, например 7:05."
            if lang == "ru"
            else "What time does the clock show? Answer in the format H:MM, for example 7:05."
        )
        return {
            "task": "clocks_time",
            "question": question,
            "answer": f"{hour}:{minute:02d}",
            "answer_type": "time",
            "image": rel,
            "data": {
                "hour": hour,
                "minute": minute,
                "face": FACE,
                "hour_rgb": list(HOUR_RGB),
                "minute_rgb": list(MINUTE_RGB),
                "font": font_id(font),
            },
        }

    return make


@register_generator("clocks")
def clocks(
    out_dir: Path,
    /,
    *,
    seed: int = 0,
    n: int | None = None,
    difficulty: str = "mixed",
    lang: str = "mixed",
    font: str | None = None,
    workers: int = 1,
) -> Path:
    """Analogue clocks to read as H:MM."""
    opts = resolve_options("clocks", seed=seed, n=n, default_n=36, difficulty=difficulty, lang=lang)
    return build_set(out_dir, opts, _make_item, version=VERSION, workers=workers, font=find_font(font))
