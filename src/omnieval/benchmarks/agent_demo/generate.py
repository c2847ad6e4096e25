"""Generators of the agent demo: pictures that need the tools, with the goal each grader checks.

* ``chart_zoom``: a bar chart whose value labels are printed too small to read without ``zoom``;
  the goal is the value of one bar.
* ``forms_table``: three "scanned" forms (grey, noisy, slightly rotated text boxes); the goal is a table
  filled with each person's amount.
* ``count_crops``: a large picture of small shapes, counted best over several crops; the goal is a count.
* ``timetable_plan``: a timetable; the goal is a total price worked out with the calculator.

The forms' gold answer is a reference solution (the JSON list of tool calls that fills the table),
which ``baseline/oracle`` plays. Every row keeps ``regions`` (``[x0, y0, x1, y1, text]`` of each
printed text) for ``read_region`` and ``goal`` for the grader; ``language`` alternates ``ru``, ``en``
(Russian first).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omnieval.benchmarks.demo._common import check_count, write_jsonl, write_manifest
from omnieval.errors import SourceError
from omnieval.sources.plugins import register_generator

__all__ = ["chart_zoom", "count_crops", "forms_table", "timetable_plan"]

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
_MONTHS = {
    "ru": ("Янв", "Фев", "Мар", "Апр", "Май", "Июн"),
    "en": ("Jan", "Feb", "Mar", "Apr", "May", "Jun"),
}
_NAMES = {
    "ru": ("Иванов", "Петрова", "Сидоров", "Кузнецова", "Смирнов", "Орлова"),
    "en": ("Smith", "Jones", "Brown", "Taylor", "Wilson", "Clark"),
}
_TOOLS_NOTE = {
    "ru": "Пользуйся инструментами; окончательный ответ отправь инструментом submit.",
    "en": "Use the tools; send the final answer with the submit tool.",
}

Row = dict[str, Any]


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.truetype(FONT, size)
    except OSError:
        raise SourceError(f"agent_demo needs {FONT} (apt-get install fonts-dejavu-core)") from None


def _text(draw: Any, xy: tuple[int, int], text: str, size: int, regions: list[list[Any]]) -> None:
    """Draw ``text`` and keep its box for ``read_region``."""
    font = _font(size)
    draw.text(xy, text, fill="black", font=font)
    x0, y0, x1, y1 = draw.textbbox(xy, text, font=font)
    regions.append([int(x0), int(y0), int(x1) + 1, int(y1) + 1, text])


def _chart(rng: random.Random, lang: str) -> tuple[Any, str, Row]:
    from PIL import Image, ImageDraw

    months = _MONTHS[lang]
    values = [rng.randint(110, 990) for _ in months]
    img = Image.new("RGB", (720, 360), "white")
    draw = ImageDraw.Draw(img)
    regions: list[list[Any]] = []
    for k, (month, value) in enumerate(zip(months, values, strict=True)):
        x, top = 30 + 115 * k, 300 - value // 4
        draw.rectangle((x, top, x + 70, 300), fill=(180, 200, 235))
        _text(draw, (x + 22, top - 9), str(value), 7, regions)  # too small to read whole: zoom
        _text(draw, (x + 14, 310), month, 18, regions)
    which = rng.randrange(len(months))
    question = {
        "ru": f"Какое значение подписано над столбцом «{months[which]}»? Подписи мелкие: увеличь их.",
        "en": f"What value is printed above the bar «{months[which]}»? The labels are small: zoom in.",
    }[lang]
    return img, question, {"goal": {"answer": str(values[which])}, "regions": regions}


def _forms(rng: random.Random, lang: str) -> tuple[Any, str, Row]:
    from PIL import Image, ImageDraw

    names = rng.sample(_NAMES[lang], 3)
    amounts = [rng.randint(100, 9999) for _ in names]
    img = Image.new("RGB", (720, 300), (205, 205, 200))
    draw = ImageDraw.Draw(img)
    for _ in range(1500):  # scanner speckle
        x, y = rng.randrange(720), rng.randrange(300)
        draw.point((x, y), fill=(150, 150, 150))
    regions: list[list[Any]] = []
    label_name, label_sum = ("ФИО", "Сумма") if lang == "ru" else ("Name", "Amount")
    form = "Форма" if lang == "ru" else "Form"
    for k, (name, amount) in enumerate(zip(names, amounts, strict=True)):
        x = 15 + 235 * k
        draw.rectangle((x, 20, x + 220, 270), fill=(235, 235, 228), outline=(90, 90, 90), width=2)
        _text(draw, (x + 12, 35), f"{form} №{k + 1}", 18, regions)
        _text(draw, (x + 12, 90), f"{label_name}: {name}", 15, regions)
        _text(draw, (x + 12, 140), f"{label_sum}: {amount}", 15, regions)
    column = "сумма" if lang == "ru" else "amount"
    question = {
        "ru": "На снимке три заполненные формы. Заполни таблицу: строка — фамилия, столбец «сумма» — сумма "
        "из формы. Когда таблица готова, отправь «готово».",
        "en": "The scan shows three filled forms. Fill the table: one row per surname, column «amount» "
        "holding the form's amount. When the table is done, submit «done».",
    }[lang]
    goal = {"table": {name: {column: str(amount)} for name, amount in zip(names, amounts, strict=True)}}
    solution = [
        {"name": "set_cell", "arguments": {"row": name, "column": column, "value": str(amount)}}
        for name, amount in zip(names, amounts, strict=True)
    ]
    solution.append({"name": "submit", "arguments": {"answer": "готово" if lang == "ru" else "done"}})
    return img, question, {"goal": goal, "regions": regions, "solution": solution}


def _count(rng: random.Random, lang: str) -> tuple[Any, str, Row]:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (800, 600), "white")
    draw = ImageDraw.Draw(img)
    colours = {"red": (220, 30, 30), "blue": (30, 60, 220), "green": (30, 160, 60)}
    target = rng.choice(list(colours))
    count = 0
    taken: list[tuple[int, int]] = []
    while len(taken) < 40:
        x, y = rng.randrange(10, 780), rng.randrange(10, 580)
        if any(abs(x - a) < 22 and abs(y - b) < 22 for a, b in taken):
            continue
        taken.append((x, y))
        colour = rng.choice(list(colours))
        circle = rng.random() < 0.5
        box = (x - 7, y - 7, x + 7, y + 7)
        (draw.ellipse if circle else draw.rectangle)(box, fill=colours[colour])
        count += int(circle and colour == target)
    names_ru = {"red": "красных", "blue": "синих", "green": "зелёных"}
    question = {
        "ru": f"Сколько {names_ru[target]} кругов на картинке? Фигуры мелкие: считай по частям (crop).",
        "en": f"How many {target} circles are in the picture? The shapes are small: count over crops.",
    }[lang]
    return img, question, {"goal": {"answer": str(count)}, "regions": []}


def _timetable(rng: random.Random, lang: str) -> tuple[Any, str, Row]:
    from PIL import Image, ImageDraw

    trains = [f"{rng.randint(100, 899)}{'АБВ'[k] if lang == 'ru' else 'ABC'[k]}" for k in range(4 - 1)]
    prices = [rng.randint(450, 4900) for _ in trains]
    img = Image.new("RGB", (560, 220), "white")
    draw = ImageDraw.Draw(img)
    regions: list[list[Any]] = []
    head = ("Поезд", "Отпр.", "Цена, руб.") if lang == "ru" else ("Train", "Dep.", "Price, RUB")
    for j, title in enumerate(head):
        _text(draw, (20 + 180 * j, 15), title, 18, regions)
    for i, (train, price) in enumerate(zip(trains, prices, strict=True)):
        y = 60 + 45 * i
        draw.line((10, y - 8, 550, y - 8), fill=(150, 150, 150))
        _text(draw, (20, y), train, 17, regions)
        _text(draw, (200, y), f"{6 + 3 * i:02d}:{rng.choice((0, 15, 30, 45)):02d}", 17, regions)
        _text(draw, (380, y), str(price), 17, regions)
    a, b = rng.sample(range(len(trains)), 2)
    n_a, n_b = rng.randint(2, 5), rng.randint(1, 4)
    total = n_a * prices[a] + n_b * prices[b]
    question = {
        "ru": f"Сколько рублей стоят {n_a} билета на поезд {trains[a]} и {n_b} на поезд {trains[b]}? "
        "Посчитай калькулятором и отправь одно число.",
        "en": f"How many roubles do {n_a} tickets for train {trains[a]} and {n_b} for train {trains[b]} "
        "cost? Use the calculator and submit one number.",
    }[lang]
    return img, question, {"goal": {"answer": str(total)}, "regions": regions}


def _table_text(table: dict[str, dict[str, str]]) -> str:
    """A goal table as one line (``Иванов: 1234; Петрова: 560``): the plain question-answer form."""
    return "; ".join(f"{row}: {value}" for row, cells in table.items() for value in cells.values())


def _suite(name: str, draw: Callable[[random.Random, str], tuple[Any, str, Row]]) -> Any:
    @register_generator(f"agent_demo.{name}")
    def generate(out_dir: Path, /, *, n: int = 6, seed: int = 0) -> Path:
        check_count(f"agent_demo.{name}", n, high=100)
        rng = random.Random(f"{name}:{seed}")
        out = Path(out_dir)
        (out / "images").mkdir(parents=True, exist_ok=True)
        rows: list[dict[str, Any]] = []
        for i in range(n):
            lang = ("ru", "en")[i % 2]
            img, question, row = draw(rng, lang)
            rel = f"images/{name}-{i:03d}.png"
            img.save(out / rel)
            question = f"{question} {_TOOLS_NOTE[lang]}"
            # the gold: the answer, or (a task graded on a table) a reference solution as tool calls
            answer = row["goal"].get("answer") or json.dumps(row.pop("solution"), ensure_ascii=False)
            rows.append(
                {
                    "id": f"{name}-{i:03d}",
                    "image": rel,
                    "question": question,
                    "answer": answer,
                    "language": lang,
                }
                | row
            )
        manifest = [  # the shape every `omnieval generate` folder has (a plain question-answer run of it)
            {
                "id": r["id"],
                "task": f"agent_demo_{name}",
                "answer_type": "number" if "answer" in r["goal"] else "text",
                "answer": r["goal"].get("answer") or _table_text(r["goal"]["table"]),
                "question": r["question"],
                "image": r["image"],
            }
            for r in rows
        ]
        write_manifest(out, manifest)
        return write_jsonl(out / f"agent_demo_{name}.jsonl", rows)

    generate.__doc__ = f"``n`` seeded ``{name}`` agent samples (Russian, English in turn)."
    return generate


chart_zoom = _suite("chart_zoom", _chart)
forms_table = _suite("forms_table", _forms)
count_crops = _suite("count_crops", _count)
timetable_plan = _suite("timetable_plan", _timetable)
