"""Generator for the demo's image-text task: questions whose answer is text drawn into the picture.

Three kinds, in turn: a sign with a price, a table cell (row and column named in the question), a bar
chart's value label. Text is drawn with DejaVu Sans (Debian ``fonts-dejavu-core``) at 20-26 px,
which Tesseract reads; what the picture shows besides the text (bar heights, layout) is not needed.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from omnieval.benchmarks.demo._common import check_count, write_jsonl, write_manifest
from omnieval.errors import SourceError
from omnieval.sources.plugins import register_generator

__all__ = ["FONT", "demo_image_text"]

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
_ITEMS = ("билет", "кофе", "обед", "книга", "зонт", "чай")
_ROWS, _COLS = ("А", "Б", "В"), ("1", "2", "3")
_MONTHS = ("Январь", "Февраль", "Март", "Апрель")


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.truetype(FONT, size)
    except OSError:
        raise SourceError(f"demo.image_text needs {FONT} (apt-get install fonts-dejavu-core)") from None


def _sign(rng: random.Random) -> tuple[Any, str, str]:
    from PIL import Image, ImageDraw

    item, price = rng.choice(_ITEMS), rng.randint(12, 990)
    img = Image.new("RGB", (360, 120), (250, 240, 200))
    draw = ImageDraw.Draw(img)
    draw.rectangle((4, 4, 355, 115), outline=(60, 40, 20), width=3)
    draw.text((20, 20), item.capitalize(), fill="black", font=_font(26))
    draw.text((20, 64), f"Цена: {price} руб.", fill="black", font=_font(26))
    return img, f"Сколько стоит {item}, судя по табличке на картинке?", str(price)


def _table(rng: random.Random) -> tuple[Any, str, str]:
    from PIL import Image, ImageDraw

    values = {(r, c): rng.randint(10, 99) for r in _ROWS for c in _COLS}
    img = Image.new("RGB", (320, 170), "white")
    draw = ImageDraw.Draw(img)
    font = _font(22)
    for j, c in enumerate(("", *_COLS)):
        draw.text((20 + 70 * j, 12), c, fill="black", font=font)
    for i, r in enumerate(_ROWS):
        y = 52 + 38 * i
        draw.line((10, y - 6, 310, y - 6), fill=(120, 120, 120))
        draw.text((20, y), r, fill="black", font=font)
        for j, c in enumerate(_COLS):
            draw.text((90 + 70 * j, y), str(values[r, c]), fill="black", font=font)
    row, col = rng.choice(_ROWS), rng.choice(_COLS)
    return img, f"Какое число стоит в таблице в строке {row}, столбце {col}?", str(values[row, col])


def _chart(rng: random.Random) -> tuple[Any, str, str]:
    from PIL import Image, ImageDraw

    values = [rng.randint(5, 95) for _ in _MONTHS]
    img = Image.new("RGB", (480, 220), "white")
    draw = ImageDraw.Draw(img)
    font = _font(20)
    for k, (month, value) in enumerate(zip(_MONTHS, values, strict=True)):
        x = 20 + 115 * k
        top = 170 - value
        draw.rectangle((x + 15, top, x + 75, 170), fill=(200, 215, 240))
        draw.text((x + 25, top - 26), str(value), fill="black", font=font)
        draw.text((x, 180), month, fill="black", font=font)
    which = rng.randrange(len(_MONTHS))
    return img, f"Какое значение подписано над столбцом «{_MONTHS[which]}» на диаграмме?", str(values[which])


_KINDS = (("sign", _sign), ("table", _table), ("chart", _chart))


@register_generator("demo.image_text")
def demo_image_text(out_dir: Path, /, *, n: int = 12, seed: int = 0) -> Path:
    """``n`` pictures with text (a sign, a table, a chart, in turn) and a question whose answer is that
    text."""
    check_count("demo.image_text", n)
    rng = random.Random(seed)
    out = Path(out_dir)
    (out / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n):
        kind, draw = _KINDS[i % len(_KINDS)]
        img, question, answer = draw(rng)
        rel = f"images/text-{i:03d}.png"
        img.save(out / rel)
        rows.append(
            {"id": f"image-text-{i:03d}", "image": rel, "question": question, "answer": answer, "kind": kind}
        )
    manifest = [
        {
            "id": r["id"],
            "task": "demo_image_text",
            "answer_type": "number",
            "answer": r["answer"],
            "question": r["question"],
            "image": r["image"],
        }
        for r in rows
    ]
    write_manifest(out, manifest)
    return write_jsonl(out / "demo_image_text.jsonl", rows)
