"""``text``: pseudo-words in Cyrillic or Latin letters to transcribe exactly (``text_cyrillic``,
``text_latin``).

Words are random letter strings, so a model cannot guess them from a dictionary. Easy: one lower-case
word in a large font; medium: two or three capitalised words; hard: three or four words with digits,
a smaller font, grey strike lines behind the text and a slight rotation. The text always fits inside
the picture with a margin. Scoring is normalised exact match (case and punctuation are folded, see
the importer); the letters themselves must all be right.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from omnieval.benchmarks.synthetic._core import MakeItem, build_set, resolve_options
from omnieval.benchmarks.synthetic._draw import find_font, font_id, load_font, save_png
from omnieval.sources.plugins import register_generator

__all__ = ["ALPHABETS", "text"]

VERSION = "1"
ALPHABETS = {"cyrillic": "абвгдежзиклмнопрстуфхцчшыэюя", "latin": "abcdefghijklmnopqrstuvwxyz"}
"""Letters used (Cyrillic without ё, й, щ, ъ, ь: they are too easily confused at small sizes)."""
_LEVELS = {
    "easy": ((1, 1), (4, 6), 44, 0.0),
    "medium": ((2, 3), (3, 7), 34, 0.0),
    "hard": ((3, 4), (3, 8), 28, 4.0),
}
_SIZE = (560, 160)
_MARGIN = 12


def _words(rng: random.Random, script: str, level: str) -> str:
    (lo, hi), (wmin, wmax), _, _ = _LEVELS[level]
    letters = ALPHABETS[script]
    words = [
        "".join(rng.choice(letters) for _ in range(rng.randint(wmin, wmax)))
        for _ in range(rng.randint(lo, hi))
    ]
    if level != "easy":
        words = [w.capitalize() for w in words]
    if level == "hard":
        words[rng.randrange(len(words))] = str(rng.randint(10, 9999))
    return " ".join(words)


def _render(text: str, rng: random.Random, level: str, font: Path) -> Any:
    """The text centred on white; hard adds strike lines and a small rotation. Shrinks the font to fit."""
    from PIL import Image, ImageDraw

    size, angle = _LEVELS[level][2], _LEVELS[level][3]
    while True:
        face = load_font(font, size)
        x0, _, x1, _ = face.getbbox(text, anchor="mm")
        if x1 - x0 <= _SIZE[0] - 4 * _MARGIN or size <= 12:
            break
        size -= 2
    img = Image.new("RGB", _SIZE, "white")
    draw = ImageDraw.Draw(img)
    if level == "hard":
        for _ in range(4):
            y = rng.randint(20, _SIZE[1] - 20)
            draw.line((0, y, _SIZE[0], y + rng.randint(-30, 30)), fill=(185, 185, 185), width=2)
    draw.text((_SIZE[0] / 2, _SIZE[1] / 2), text, font=face, fill=(0, 0, 0), anchor="mm")
    if angle:
        img = img.rotate(rng.uniform(-angle, angle), resample=Image.Resampling.BICUBIC, fillcolor="white")
    return img


def _make_item(font: Path) -> MakeItem:
    def make(index: int, rng: random.Random, level: str, lang: str, set_dir: Path) -> dict[str, Any]:
        script = ("cyrillic", "latin")[(index // 6) % 2]
        words = _words(rng, script, level)
        rel = f"images/{index:05d}.png"
        save_png(_render(words, rng, level, font), set_dir / rel)
        where = {
            "cyrillic": ("кириллицей", "in Cyrillic letters"),
            "latin": ("латиницей", "in Latin letters"),
        }[script]
        question = (
            f"Перепишите текст с картинки точно, буква в букву. Текст написан {where[0]}. Ответьте только "
            "текстом."
            if lang == "ru"
            else f"Transcribe the text in the picture exactly, letter for letter. It is written {where[1]}. "
            "Answer with the text only."
        )
        return {
            "task": f"text_{script}",
            "question": question,
            "answer": words,
            "answer_type": "text",
            "image": rel,
            "data": {"script": script, "text": words, "font": font_id(font)},
        }

    return make


@register_generator("text")
def text(
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
    """Cyrillic and Latin pseudo-words to transcribe exactly."""
    opts = resolve_options("text", seed=seed, n=n, default_n=36, difficulty=difficulty, lang=lang)
    return build_set(out_dir, opts, _make_item, version=VERSION, workers=workers, font=find_font(font))
