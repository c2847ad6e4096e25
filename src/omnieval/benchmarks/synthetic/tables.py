"""``tables``: a drawn table of numbers; cell lookup, row/column sums, arg-max (tasks ``tables_<ask>``).

Row names are cities, columns are months, in the question's language. Arg-max questions have a
unique answer. The manifest keeps every cell.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from omnieval.benchmarks.synthetic._core import MakeItem, build_set, resolve_options
from omnieval.benchmarks.synthetic._draw import draw_text, find_font, font_id, save_png
from omnieval.sources.plugins import register_generator

__all__ = ["CITIES", "MONTHS", "tables"]

VERSION = "1"
CITIES = (
    ("Москва", "Moscow"),
    ("Казань", "Kazan"),
    ("Омск", "Omsk"),
    ("Пермь", "Perm"),
    ("Самара", "Samara"),
    ("Тула", "Tula"),
    ("Сочи", "Sochi"),
    ("Томск", "Tomsk"),
)
MONTHS = (("янв", "Jan"), ("фев", "Feb"), ("мар", "Mar"), ("апр", "Apr"), ("май", "May"), ("июн", "Jun"))
_SHAPE = {"easy": (3, 3, (1, 20)), "medium": (4, 4, (10, 99)), "hard": (5, 6, (10, 999))}
_ASKS = ("lookup", "sum", "argmax")


def _draw(rows: list[str], cols: list[str], cells: list[list[int]], font: Path) -> tuple[Any, dict[str, int]]:
    from PIL import Image, ImageDraw

    first, width, height = 110, 72, 34
    img = Image.new("RGB", (first + width * len(cols) + 2, height * (len(rows) + 1) + 2), "white")
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, img.width - 1, height), fill=(225, 232, 245))
    for r in range(len(rows) + 2):
        draw.line((0, r * height, img.width - 1, r * height), fill=(0, 0, 0), width=1)
    for c in range(len(cols) + 2):
        x = 0 if c == 0 else first + (c - 1) * width
        draw.line((x, 0, x, img.height - 1), fill=(0, 0, 0), width=1)
    for c, name in enumerate(cols):
        draw_text(draw, (first + c * width + width / 2, height / 2), name, size=15, font=font)
    for r, name in enumerate(rows):
        y = (r + 1) * height + height / 2
        draw_text(draw, (8, y), name, size=15, font=font, anchor="lm")
        for c, value in enumerate(cells[r]):
            draw_text(draw, (first + c * width + width / 2, y), str(value), size=15, font=font)
    return img, {"first_col": first, "col_width": width, "row_height": height}


def _question(
    ask: str,
    rows: list[str],
    cols: list[str],
    cells: list[list[int]],
    lang: str,
    *,
    r: int,
    c: int,
    rng: random.Random,
) -> tuple[str, str, dict[str, Any]]:
    ru = lang == "ru"
    num = " Ответьте одним числом." if ru else " Answer with a single number."
    if ask == "lookup":
        q = (
            f"Какое число стоит в строке «{rows[r]}» и столбце «{cols[c]}»?"
            if ru
            else f"What number is in row '{rows[r]}', column '{cols[c]}'?"
        )
        return q + num, str(cells[r][c]), {"op": "cell", "row": r, "col": c}
    if ask == "sum":
        if rng.random() < 0.5:
            q = (
                f"Чему равна сумма чисел в строке «{rows[r]}»?"
                if ru
                else f"What is the sum of the numbers in row '{rows[r]}'?"
            )
            return q + num, str(sum(cells[r])), {"op": "row_sum", "row": r}
        q = (
            f"Чему равна сумма чисел в столбце «{cols[c]}»?"
            if ru
            else f"What is the sum of the numbers in column '{cols[c]}'?"
        )
        return q + num, str(sum(row[c] for row in cells)), {"op": "col_sum", "col": c}
    column = [row[c] for row in cells]
    q = (
        f"В какой строке самое большое число в столбце «{cols[c]}»? Ответьте названием строки."
        if ru
        else f"Which row has the largest number in column '{cols[c]}'? Answer with the row name."
    )
    return q, rows[column.index(max(column))], {"op": "col_argmax", "col": c}


def _cells(
    rng: random.Random, n_rows: int, n_cols: int, low: int, high: int, *, unique_col: int
) -> list[list[int]]:
    """Random cells whose column ``unique_col`` has a single maximum."""
    while True:
        cells = [[rng.randint(low, high) for _ in range(n_cols)] for _ in range(n_rows)]
        column = [row[unique_col] for row in cells]
        if column.count(max(column)) == 1:
            return cells


def _make_item(font: Path) -> MakeItem:
    def make(index: int, rng: random.Random, level: str, lang: str, set_dir: Path) -> dict[str, Any]:
        n_rows, n_cols, (low, high) = _SHAPE[level]
        ask = _ASKS[(index // 6) % 3]
        side = 0 if lang == "ru" else 1
        rows = [c[side] for c in rng.sample(CITIES, n_rows)]
        start = rng.randint(0, len(MONTHS) - n_cols)
        cols = [m[side] for m in MONTHS[start : start + n_cols]]
        r, c = rng.randrange(n_rows), rng.randrange(n_cols)
        cells = _cells(rng, n_rows, n_cols, low, high, unique_col=c)
        question, answer, query = _question(ask, rows, cols, cells, lang, r=r, c=c, rng=rng)
        img, geometry = _draw(rows, cols, cells, font)
        rel = f"images/{index:05d}.png"
        save_png(img, set_dir / rel)
        return {
            "task": f"tables_{ask}",
            "question": question,
            "answer": answer,
            "answer_type": "word" if ask == "argmax" else "number",
            "image": rel,
            "data": {
                "rows": rows,
                "cols": cols,
                "cells": cells,
                "query": query,
                "layout": geometry,
                "font": font_id(font),
            },
        }

    return make


@register_generator("tables")
def tables(
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
    """Tables of numbers with cell-lookup, sum and arg-max questions."""
    opts = resolve_options("tables", seed=seed, n=n, default_n=36, difficulty=difficulty, lang=lang)
    return build_set(out_dir, opts, _make_item, version=VERSION, workers=workers, font=find_font(font))
