"""Generators for the text (arithmetic) and image (shape counting) demo tasks.

Everything is drawn from ``random.Random(seed)``, so the same options always give the same data.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from omnieval.benchmarks.demo._common import check_count, write_jsonl, write_manifest
from omnieval.sources.plugins import register_generator

__all__ = ["SHAPES", "arithmetic_rows", "demo_image", "demo_text", "draw_shapes"]

SHAPES = {"circle": ("кругов", "circles"), "square": ("квадратов", "squares")}
"""Shape → (Russian genitive plural, English plural) used in the questions."""

_COLOURS = [(220, 40, 40), (40, 90, 220), (30, 160, 60), (230, 160, 20), (140, 60, 200)]


def arithmetic_rows(n: int, *, seed: int) -> list[dict[str, Any]]:
    """``n`` small sums, differences and products with their answers."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        op = "+-×"[i % 3]
        a, b = rng.randint(2, 20 if op != "×" else 9), rng.randint(1, 9)
        if op == "-" and b > a:
            a, b = b, a
        value = a + b if op == "+" else a - b if op == "-" else a * b
        rows.append({"id": f"text-{i:03d}", "question": f"{a} {op} {b}", "answer": str(value), "op": op})
    return rows


@register_generator("demo.text")
def demo_text(out_dir: Path, /, *, n: int = 24, seed: int = 0) -> Path:
    """Write ``n`` arithmetic questions to ``demo_text.jsonl``."""
    check_count("demo.text", n)
    rows = arithmetic_rows(n, seed=seed)
    write_manifest(
        out_dir,
        [
            {
                "id": r["id"],
                "task": "demo_text",
                "answer_type": "number",
                "answer": r["answer"],
                "question": f"Реши пример и ответь одним числом.\nПример: {r['question']}",
            }
            for r in rows
        ],
    )
    return write_jsonl(Path(out_dir) / "demo_text.jsonl", rows)


def draw_shapes(counts: dict[str, int], *, rng: random.Random, size: int = 160) -> Any:
    """A white picture with ``counts[shape]`` non-overlapping shapes of each kind."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (size, size), "white")
    draw = ImageDraw.Draw(img)
    cell = size // 4  # a 4×4 grid keeps shapes apart: at most 16 shapes
    slots = rng.sample(range(16), sum(counts.values()))
    kinds = [k for k, c in sorted(counts.items()) for _ in range(c)]
    for slot, kind in zip(slots, kinds, strict=True):
        x0, y0 = (slot % 4) * cell + 6, (slot // 4) * cell + 6
        box = (x0, y0, x0 + cell - 12, y0 + cell - 12)
        colour = rng.choice(_COLOURS)
        if kind == "circle":
            draw.ellipse(box, fill=colour, outline=(0, 0, 0))
        else:
            draw.rectangle(box, fill=colour, outline=(0, 0, 0))
    return img


@register_generator("demo.image")
def demo_image(out_dir: Path, /, *, n: int = 24, seed: int = 0) -> Path:
    """Write ``n`` pictures of circles and squares and ask how many of one kind there are."""
    check_count("demo.image", n)
    rng = random.Random(seed)
    out = Path(out_dir)
    (out / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n):
        counts = {"circle": rng.randint(1, 6), "square": rng.randint(0, 5)}
        asked = "circle" if i % 2 == 0 or counts["square"] == 0 else "square"
        rel = f"images/shapes-{i:03d}.png"
        draw_shapes(counts, rng=rng).save(out / rel)
        ru, en = SHAPES[asked]
        rows.append(
            {
                "id": f"image-{i:03d}",
                "image": rel,
                "answer": str(counts[asked]),
                "shape": asked,
                "shape_ru": ru,
                "shape_en": en,
                "circles": counts["circle"],
                "squares": counts["square"],
            }
        )
    write_manifest(
        out,
        [
            {
                "id": r["id"],
                "task": "demo_image",
                "answer_type": "number",
                "answer": r["answer"],
                "question": f"Сколько {r['shape_ru']} на картинке? Ответь одним числом.",
                "image": r["image"],
            }
            for r in rows
        ],
    )
    return write_jsonl(out / "demo_image.jsonl", rows)
