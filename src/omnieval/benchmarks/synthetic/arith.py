"""``math``: rendered arithmetic (``math_arithmetic``) and linear equations (``math_algebra``).

The picture shows the expression in school notation (×, ÷, −); the manifest keeps it in plain
ASCII (``expr``) so a checker can recompute it. Every answer is a whole number: divisions are exact
and equations are built from their solution.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from omnieval.benchmarks.synthetic._core import MakeItem, build_set, resolve_options
from omnieval.benchmarks.synthetic._draw import find_font, font_id, load_font, save_png
from omnieval.sources.plugins import register_generator

__all__ = ["arithmetic", "equation", "math_suite", "pretty"]

VERSION = "1"


def pretty(expr: str) -> str:
    """ASCII expression → school notation (``*`` → ×, ``/`` → ÷, ``-`` → −, ``3*x`` → ``3x``)."""
    for var in "xyz":
        for digit in "0123456789":
            expr = expr.replace(f"{digit}*{var}", f"{digit}{var}").replace(f"{digit}*(", f"{digit}(")
    return expr.replace("*", "×").replace("/", "÷").replace("-", "−")


def arithmetic(rng: random.Random, level: str) -> tuple[str, int]:
    """An ASCII expression with a whole-number value, and that value."""
    r = rng.randint
    if level == "easy":
        a, b = r(10, 99), r(10, 99)
        return (f"{a} + {b}", a + b) if rng.random() < 0.5 else (f"{max(a, b)} - {min(a, b)}", abs(a - b))
    if level == "medium":
        a, b, c = r(2, 12), r(2, 12), r(2, 40)
        return rng.choice(
            [
                (f"{a} * {b} + {c}", a * b + c),
                (f"{a} * {b} - {c}", a * b - c),
                (f"({a} + {c}) * {b}", (a + c) * b),
                (f"{a * b} / {b} + {c}", a + c),
            ]
        )
    a, b, c, d = r(2, 15), r(2, 15), r(2, 9), r(2, 60)
    return rng.choice(
        [
            (f"({a} + {b}) * {c} - {d}", (a + b) * c - d),
            (f"{c} * ({a + b} - {b}) + {d}", c * a + d),
            (f"{a * c} / {c} * {b} - {d}", a * b - d),
            (f"{d} - {a} * ({b} - {c})", d - a * (b - c)),
        ]
    )


def equation(rng: random.Random, level: str) -> tuple[str, int]:
    """An ASCII linear equation in x with a whole-number solution, and the solution."""
    x = rng.randint(-9, 15) if level == "hard" else rng.randint(1, 20)
    if level == "easy":
        a = rng.randint(2, 30)
        return (f"x + {a} = {x + a}", x) if rng.random() < 0.5 else (f"x - {a} = {x - a}", x)
    if level == "medium":
        a, b = rng.randint(2, 9), rng.randint(1, 30)
        return f"{a}*x + {b} = {a * x + b}", x
    a, b = rng.randint(2, 7), rng.randint(1, 9)
    c = rng.choice([k for k in range(1, 8) if k != a])
    d = a * (x + b) - c * x
    sign = "+" if d >= 0 else "-"
    return f"{a}*(x + {b}) = {c}*x {sign} {abs(d)}".replace(" 1*x", " x"), x


def _render(lines: list[str], font: Path) -> Any:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (480, 70 + 56 * len(lines)), "white")
    draw = ImageDraw.Draw(img)
    face = load_font(font, 36)
    for i, line in enumerate(lines):
        draw.text((240, 60 + 56 * i), line, font=face, fill=(0, 0, 0), anchor="mm")
    return img


def _make_item(font: Path) -> MakeItem:
    def make(index: int, rng: random.Random, level: str, lang: str, set_dir: Path) -> dict[str, Any]:
        kind = ("arithmetic", "algebra")[(index // 6) % 2]
        ru = lang == "ru"
        if kind == "arithmetic":
            expr, value = arithmetic(rng, level)
            lines = [f"{pretty(expr)} = ?"]
            question = (
                "Вычислите значение выражения на картинке. Ответьте одним числом."
                if ru
                else "Compute the value of the expression in the picture. Answer with a single number."
            )
        else:
            expr, value = equation(rng, level)
            lines = [pretty(expr), "x = ?"]
            question = (
                "Решите уравнение на картинке и найдите x. Ответьте одним числом."
                if ru
                else "Solve the equation in the picture for x. Answer with a single number."
            )
        rel = f"images/{index:05d}.png"
        save_png(_render(lines, font), set_dir / rel)
        return {
            "task": f"math_{kind}",
            "question": question,
            "answer": str(value),
            "answer_type": "number",
            "image": rel,
            "data": {"kind": kind, "expr": expr, "shown": lines, "font": font_id(font)},
        }

    return make


@register_generator("math")
def math_suite(
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
    """Rendered arithmetic expressions and linear equations with whole-number answers."""
    opts = resolve_options("math", seed=seed, n=n, default_n=36, difficulty=difficulty, lang=lang)
    return build_set(out_dir, opts, _make_item, version=VERSION, workers=workers, font=find_font(font))
