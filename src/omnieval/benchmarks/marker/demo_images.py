"""Generated pictures for the image variant of the MARKER demo (flag, bar chart, counting).

Each item's answer is readable only from its picture, as MARKER asks of its items (article §6.6:
"images must be necessary"). Drawing is deterministic so the cached data never changes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["IMAGE_ITEMS", "draw_items"]

Draw = Callable[[Any], None]


def _flag(draw: Any) -> None:
    for row, colour in enumerate(((255, 255, 255), (0, 57, 166), (213, 43, 30))):  # white, blue, red
        draw.rectangle((0, row * 80, 359, row * 80 + 79), fill=colour)
    draw.rectangle((0, 0, 359, 239), outline=(120, 120, 120))  # the white stripe needs an edge


def _bars(draw: Any) -> None:
    heights = (110, 185, 150, 80)  # class 2 is the tallest
    for i, height in enumerate(heights):
        x = 30 + i * 80
        draw.rectangle((x, 205 - height, x + 50, 205), fill=(40, 90, 200))
        draw.text((x + 21, 212), str(i + 1), fill=(0, 0, 0))


def _circles(draw: Any) -> None:
    for x, y in ((60, 60), (180, 50), (300, 80), (110, 170), (250, 180)):  # five circles
        draw.ellipse((x - 30, y - 30, x + 30, y + 30), fill=(220, 120, 20), outline=(0, 0, 0))


IMAGE_ITEMS: tuple[tuple[str, str, tuple[str, ...], str, Draw], ...] = (
    (
        "geography",
        "Флаг какой страны изображён на картинке?",
        ("Франция", "Россия", "Нидерланды", "Сербия"),
        "B",
        _flag,
    ),
    (
        "math",
        "На диаграмме — число учеников в четырёх классах (номера под столбцами). В каком классе учеников "
        "больше всего?",
        ("в 1-м", "во 2-м", "в 3-м", "в 4-м"),
        "B",
        _bars,
    ),
    ("math", "Сколько кругов на картинке?", ("3", "4", "5", "6", "7"), "C", _circles),
)
"""(split, question, options, gold letter, drawing) — the picture alone decides the answer."""


def draw_items(out_dir: Path) -> list[dict[str, Any]]:
    """Draw every picture as PNG under ``out_dir/images`` and return the JSONL rows."""
    from PIL import Image, ImageDraw

    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    for i, (split, question, options, gold, paint) in enumerate(IMAGE_ITEMS):
        image = Image.new("RGB", (360, 240), (255, 255, 255))
        paint(ImageDraw.Draw(image))
        name = f"images/{split}-img{i}.png"
        image.save(out_dir / name)
        rows.append(
            {
                "id": f"{split}-img{i}",
                "question": question,
                "choices": list(options),
                "answer": gold,
                "split": split,
                "image": name,
            }
        )
    return rows
