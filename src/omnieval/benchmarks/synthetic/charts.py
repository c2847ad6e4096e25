"""``charts``: bar, line and pie charts; read a value, compare, compute (tasks ``charts_<kind>_<ask>``).

Easy and medium charts print every value; hard bar and line charts print none, so values are read
against grid lines every 10 (values are multiples of 5). Pie shares are whole percents summing to
100, listed in the legend. Compare questions always have a unique answer (no ties at the top).
The manifest keeps the values and the plot geometry the picture was drawn from.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from omnieval.benchmarks.synthetic._core import MakeItem, build_set, resolve_options
from omnieval.benchmarks.synthetic._draw import PALETTE, draw_text, find_font, font_id, save_png
from omnieval.sources.plugins import register_generator

__all__ = ["BAR_RGB", "CATEGORIES", "PLOT", "charts"]

VERSION = "1"
CATEGORIES = (
    ("яблоки", "apples"),
    ("груши", "pears"),
    ("сливы", "plums"),
    ("вишни", "cherries"),
    ("лимоны", "lemons"),
    ("бананы", "bananas"),
    ("персики", "peaches"),
    ("абрикосы", "apricots"),
)
BAR_RGB = PALETTE[1].rgb
LINE_RGB = PALETTE[0].rgb
PLOT = {"width": 480, "height": 320, "left": 56, "right": 464, "top": 40, "bottom": 270}
_KINDS = ("bar", "line", "pie")
_ASKS = ("read", "compare", "compute")
_COUNT = {"easy": (3, 4), "medium": (4, 5), "hard": (5, 6)}


def _values(rng: random.Random, k: int, level: str) -> list[int]:
    """``k`` values with a unique maximum (and minimum)."""
    while True:
        if level == "easy":
            vals = [rng.randint(1, 20) for _ in range(k)]
        elif level == "medium":
            vals = [rng.randint(10, 95) for _ in range(k)]
        else:
            vals = [5 * rng.randint(1, 19) for _ in range(k)]
        if vals.count(max(vals)) == 1 and vals.count(min(vals)) == 1:
            return vals


def _shares(rng: random.Random, k: int, level: str) -> list[int]:
    """``k`` whole percents summing to 100 with a unique maximum; steps of 10, 5 or 1 by level."""
    step = {"easy": 10, "medium": 5, "hard": 1}[level]
    units = 100 // step
    while True:
        cuts = sorted(rng.sample(range(1, units), k - 1))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, units], strict=True)]
        vals = [p * step for p in parts]
        if min(vals) >= 3 and vals.count(max(vals)) == 1:
            return vals


def _axis(values: list[int], level: str) -> tuple[int, int]:
    """(axis maximum, grid step)."""
    if level == "hard":
        return 100, 10
    top = max(10, -(-int(max(values) * 1.15) // 10) * 10)
    return top, max(1, top // 5)


def _draw_axes(draw: Any, labels: list[str], axis_max: int, step: int, font: Path) -> list[float]:
    """Grid, y ticks and x labels; returns the x centre of each category slot."""
    p = PLOT
    span = p["bottom"] - p["top"]
    for tick in range(0, axis_max + 1, step):
        y = p["bottom"] - tick * span / axis_max
        draw.line((p["left"], y, p["right"], y), fill=(215, 215, 215), width=1)
        draw_text(draw, (p["left"] - 6, y), str(tick), size=12, font=font, anchor="rm")
    draw.line((p["left"], p["top"], p["left"], p["bottom"]), fill=(0, 0, 0), width=2)
    draw.line((p["left"], p["bottom"], p["right"], p["bottom"]), fill=(0, 0, 0), width=2)
    slot = (p["right"] - p["left"]) / len(labels)
    centres = [p["left"] + slot * (i + 0.5) for i in range(len(labels))]
    for x, label in zip(centres, labels, strict=True):
        draw_text(draw, (x, p["bottom"] + 16), label, size=13, font=font)
    return centres


def _draw(
    kind: str, labels: list[str], values: list[int], level: str, title: str, font: Path
) -> tuple[Any, dict[str, Any]]:
    from PIL import Image, ImageDraw

    p = PLOT
    img = Image.new("RGB", (p["width"], p["height"]), "white")
    draw = ImageDraw.Draw(img)
    draw_text(draw, (p["width"] / 2, 18), title, size=16, font=font)
    show = level != "hard"
    if kind == "pie":
        box = (40, 50, 250, 260)
        start = -90.0
        for i, (label, v) in enumerate(zip(labels, values, strict=True)):
            end = start + 3.6 * v
            draw.pieslice(box, start, end, fill=PALETTE[i].rgb)
            row_y = 70 + 30 * i
            draw.rectangle((280, row_y - 8, 296, row_y + 8), fill=PALETTE[i].rgb)
            draw_text(draw, (304, row_y), f"{label} — {v}%", size=15, font=font, anchor="lm")
            start = end
        return img, {"box": list(box)}
    axis_max, step = _axis(values, level)
    centres = _draw_axes(draw, labels, axis_max, step, font)
    span = p["bottom"] - p["top"]
    ys = [p["bottom"] - v * span / axis_max for v in values]
    half = (p["right"] - p["left"]) / len(labels) * 0.3
    if kind == "bar":
        for x, y in zip(centres, ys, strict=True):
            draw.rectangle((round(x - half), round(y), round(x + half), p["bottom"] - 1), fill=BAR_RGB)
    else:
        draw.line(list(zip(centres, ys, strict=True)), fill=LINE_RGB, width=3)
        for x, y in zip(centres, ys, strict=True):
            draw.ellipse((x - 5, y - 5, x + 5, y + 5), fill=(0, 0, 0))
    if show:
        for x, y, v in zip(centres, ys, values, strict=True):
            draw_text(draw, (x, y - 14), str(v), size=14, font=font)
    return img, {
        "axis_max": axis_max,
        "grid_step": step,
        "x": [round(c, 2) for c in centres],
        "bar_half_width": round(half, 2),
    }


def _question(
    kind: str, ask: str, labels: list[str], values: list[int], lang: str, rng: random.Random
) -> tuple[str, str, dict[str, Any]]:
    """Question, answer and the query (indices into the data) for one chart."""
    ru = lang == "ru"
    num = " Ответьте одним числом." if ru else " Answer with a single number."
    i, j = sorted(rng.sample(range(len(values)), 2))
    if kind == "line":
        return _line_question(ask, labels, values, (i, j), ru=ru, num=num)
    return _category_question(kind, ask, labels, values, (i, j), ru=ru, num=num, rng=rng)


def _line_question(
    ask: str, labels: list[str], values: list[int], pair: tuple[int, int], *, ru: bool, num: str
) -> tuple[str, str, dict[str, Any]]:
    """A line chart's question: one year's value, the peak year, or the change between two years."""
    i, j = pair
    a, b = labels[i], labels[j]
    if ask == "read":
        return (
            (f"Каким было значение в {a} году?" if ru else f"What was the value in {a}?") + num,
            str(values[i]),
            {"op": "value", "i": i},
        )
    if ask == "compare":
        return (
            ("В каком году значение было наибольшим?" if ru else "In which year was the value the highest?")
            + num,
            labels[values.index(max(values))],
            {"op": "argmax_label"},
        )
    q = (
        f"На сколько изменилось значение с {a} по {b} год? Если оно уменьшилось, ответьте отрицательным "
        "числом."
        if ru
        else f"By how much did the value change from {a} to {b}? Give a negative number if it fell."
    )
    return q + num, str(values[j] - values[i]), {"op": "change", "i": i, "j": j}


def _category_question(
    kind: str,
    ask: str,
    labels: list[str],
    values: list[int],
    pair: tuple[int, int],
    *,
    ru: bool,
    num: str,
    rng: random.Random,
) -> tuple[str, str, dict[str, Any]]:
    """A bar or pie chart's question: a category's value, the largest one, a sum or the range."""
    i, j = pair
    unit = ("процентов" if ru else "percent") if kind == "pie" else ""
    if ask == "read":
        q = (
            (
                f"Какая доля у категории «{labels[i]}» (в процентах)?"
                if kind == "pie"
                else f"Какое значение у категории «{labels[i]}»?"
            )
            if ru
            else (
                f"What share does '{labels[i]}' have, in percent?"
                if kind == "pie"
                else f"What is the value of '{labels[i]}'?"
            )
        )
        return q + num, str(values[i]), {"op": "value", "i": i}
    if ask == "compare":
        q = (
            "Какая категория самая большая? Ответьте её названием."
            if ru
            else "Which category is the largest? Answer with its name."
        )
        return q, labels[values.index(max(values))], {"op": "argmax_label"}
    if rng.random() < 0.5 or kind == "pie":
        q = (
            f"Чему равна сумма значений категорий «{labels[i]}» и "
            f"«{labels[j]}»{' в ' + unit if unit else ''}?"
            if ru
            else f"What is the sum of '{labels[i]}' and '{labels[j]}'{' in ' + unit if unit else ''}?"
        )
        return q + num, str(values[i] + values[j]), {"op": "sum", "i": i, "j": j}
    q = (
        "На сколько наибольшее значение больше наименьшего?"
        if ru
        else "By how much is the largest value greater than the smallest?"
    )
    return q + num, str(max(values) - min(values)), {"op": "range"}


def _make_item(font: Path) -> MakeItem:
    def make(index: int, rng: random.Random, level: str, lang: str, set_dir: Path) -> dict[str, Any]:
        kind, ask = _KINDS[(index // 6) % 3], rng.choice(_ASKS)
        k = rng.randint(*_COUNT[level])
        if kind == "line":
            first = rng.randint(2010, 2018)
            labels = [str(first + t) for t in range(k)]
        else:
            labels = [c[0] if lang == "ru" else c[1] for c in rng.sample(CATEGORIES, k)]
        values = _shares(rng, k, level) if kind == "pie" else _values(rng, k, level)
        title = {
            "bar": ("Урожай, тонн", "Harvest, tonnes"),
            "line": ("Продажи по годам", "Sales by year"),
            "pie": ("Доли продаж", "Sales shares"),
        }[kind][0 if lang == "ru" else 1]
        question, answer, query = _question(kind, ask, labels, values, lang, rng)
        img, geometry = _draw(kind, labels, values, level, title, font)
        rel = f"images/{index:05d}.png"
        save_png(img, set_dir / rel)
        answer_type = "word" if kind != "line" and ask == "compare" else "number"
        return {
            "task": f"charts_{kind}_{ask}",
            "question": question,
            "answer": answer,
            "answer_type": answer_type,
            "image": rel,
            "data": {
                "kind": kind,
                "labels": labels,
                "values": values,
                "query": query,
                "values_printed": level != "hard" or kind == "pie",
                "plot": {**PLOT, **geometry},
                "font": font_id(font),
            },
        }

    return make


@register_generator("charts")
def charts(
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
    """Bar, line and pie charts with read, compare and compute questions."""
    opts = resolve_options("charts", seed=seed, n=n, default_n=54, difficulty=difficulty, lang=lang)
    return build_set(out_dir, opts, _make_item, version=VERSION, workers=workers, font=find_font(font))
