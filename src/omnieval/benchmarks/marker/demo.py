"""A small generated MARKER-style demo: Russian school multiple-choice items with 2 to 5 options.

The items mirror MARKER's splits (history, art, geography, mathematics, physics) as plain text, so
the whole CircularEval and strict/lenient scoring path runs without the real (image) dataset;
``kind: image`` gives a few items whose answer only a generated picture holds (``demo_images``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omnieval.benchmarks.marker.demo_images import draw_items
from omnieval.errors import SourceError
from omnieval.sources.plugins import register_generator

__all__ = ["ITEMS", "marker_demo"]

ITEMS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("history", "В каком году произошло Бородинское сражение?", ("1812", "1709", "1853", "1914"), "A"),
    (
        "history",
        "Кто командовал русской армией при Бородино?",
        ("А. В. Суворов", "М. И. Кутузов", "П. И. Багратион"),
        "B",
    ),
    (
        "history",
        "Кто основал Санкт-Петербург?",
        ("Иван Грозный", "Екатерина II", "Пётр I", "Александр I", "Николай I"),
        "C",
    ),
    ("art", "Кто написал картину «Утро в сосновом лесу»?", ("И. И. Шишкин", "И. Е. Репин"), "A"),
    (
        "art",
        "К какому направлению относятся передвижники?",
        ("Импрессионизм", "Кубизм", "Реализм", "Барокко"),
        "C",
    ),
    (
        "geography",
        "Какая река самая длинная в европейской части России?",
        ("Дон", "Волга", "Ока", "Кама"),
        "B",
    ),
    ("geography", "Столица Республики Татарстан —", ("Уфа", "Самара", "Казань"), "C"),
    (
        "geography",
        "Самое глубокое озеро мира —",
        ("Ладожское", "Онежское", "Байкал", "Каспийское", "Селигер"),
        "C",
    ),
    ("math", "Чему равно 15% от 200?", ("15", "30", "20", "45"), "B"),
    ("math", "Решите уравнение 2x + 3 = 11. Чему равен x?", ("4", "7"), "A"),
    (
        "physics",
        "Тело падает без начальной скорости 2 с (g = 10 м/с²). Какова его скорость?",
        ("10 м/с", "20 м/с", "40 м/с", "5 м/с"),
        "B",
    ),
    ("physics", "В каких единицах измеряется сила в СИ?", ("Джоуль", "Ватт", "Паскаль", "Ньютон"), "D"),
)
"""(split, question, options, gold letter) — hand-written, answers checked by hand."""


@register_generator("marker_demo")
def marker_demo(
    out_dir: Path, /, *, splits: tuple[str, ...] | list[str] | None = None, kind: str = "text"
) -> Path:
    """Write the demo items to ``marker_demo.jsonl``: ``kind`` ``text`` or ``image`` (pictures beside it).

    ``splits`` keeps only some of history, art, geography, math, physics.
    """
    if kind not in ("text", "image"):
        raise SourceError(f"marker_demo: kind must be 'text' or 'image', not {kind!r}", field="kind")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if kind == "image":
        rows = draw_items(out)
    else:
        rows = [
            {
                "id": f"{split}-{i}",
                "question": question,
                "choices": list(options),
                "answer": gold,
                "split": split,
            }
            for i, (split, question, options, gold) in enumerate(ITEMS)
        ]
    known = sorted({row["split"] for row in rows})
    wanted = set(splits) if splits else set(known)
    if wanted - set(known):
        raise SourceError(
            f"marker_demo: unknown split(s) {sorted(wanted - set(known))}; known: {known}", field="splits"
        )
    kept = [row for row in rows if row["split"] in wanted]
    with (out / "manifest.jsonl").open("w", encoding="utf-8") as fh:  # what ``--tasks generated:DIR`` runs
        for row in kept:
            fh.write(json.dumps(_manifest_row(row), ensure_ascii=False) + "\n")
    path = out / "marker_demo.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for row in kept:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def _manifest_row(row: dict[str, Any]) -> dict[str, Any]:
    """One item in the shape every ``omnieval generate`` folder has: options lettered in the question."""
    options = "".join(f"{letter}. {text}\n" for letter, text in zip("ABCDE", row["choices"], strict=False))
    media = {"image": row["image"]} if "image" in row else {}
    return {
        "id": row["id"],
        "task": f"marker_demo_{row['split']}",
        "answer_type": "word",
        "answer": row["answer"],
        "question": f"{row['question']}\n{options}Ответь буквой варианта.",
        **media,
    }
