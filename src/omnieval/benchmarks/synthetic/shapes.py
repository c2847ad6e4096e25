"""``shapes``: scenes of circles, squares and triangles; count, colour, size and relative position.

Each instance asks one question (tasks ``shapes_count``, ``shapes_colour``, ``shapes_size``,
``shapes_position`` in rotation). Scenes are built so the answer is unique: the shape asked about
is the only one of its kind (colour), the largest/smallest of its kind by a factor of 1.5 (size), or
clearly apart from the other along the asked axis (position). Shapes never touch.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, NamedTuple

from omnieval.benchmarks.synthetic._core import MakeItem, build_set, resolve_options
from omnieval.benchmarks.synthetic._draw import PALETTE, Colour, save_png
from omnieval.errors import SourceError
from omnieval.sources.plugins import register_generator

__all__ = ["KINDS", "Shape", "draw_scene", "shapes"]

VERSION = "1"


class Kind(NamedTuple):
    en: str
    en_pl: str
    ru: str
    ru_gen_pl: str
    ru_gen_sg: str


KINDS = {
    "circle": Kind("circle", "circles", "круг", "кругов", "круга"),
    "square": Kind("square", "squares", "квадрат", "квадратов", "квадрата"),
    "triangle": Kind("triangle", "triangles", "треугольник", "треугольников", "треугольника"),
}
_COLOURS = {c.key: c for c in PALETTE}
_LEVELS = {  # canvas side, shape count range, half-size range
    "easy": (256, (2, 4), (16, 30)),
    "medium": (320, (4, 7), (12, 28)),
    "hard": (384, (7, 11), (9, 26)),
}
_ASKS = ("count", "colour", "size", "position")
_GAP = 6


class Shape(NamedTuple):
    kind: str
    colour: str
    half: int
    """Half the side of the bounding box (circle radius)."""
    cx: int
    cy: int

    def box(self) -> tuple[int, int, int, int]:
        return (self.cx - self.half, self.cy - self.half, self.cx + self.half, self.cy + self.half)


def _place(rng: random.Random, specs: list[tuple[str, str, int]], side: int) -> list[Shape] | None:
    """Put shapes at random non-touching places; None when the canvas is too crowded."""
    placed: list[Shape] = []
    for kind, colour, half in specs:
        for _ in range(200):
            cx, cy = rng.randint(half + 4, side - half - 5), rng.randint(half + 4, side - half - 5)
            if all(
                abs(cx - o.cx) > half + o.half + _GAP or abs(cy - o.cy) > half + o.half + _GAP for o in placed
            ):
                placed.append(Shape(kind, colour, half, cx, cy))
                break
        else:
            return None
    return placed


def draw_scene(shapes_: list[Shape], side: int) -> Any:
    """White canvas, shapes filled with their palette colour, no outline, no anti-aliasing."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (side, side), "white")
    draw = ImageDraw.Draw(img)
    for s in shapes_:
        x0, y0, x1, y1 = s.box()
        fill = _COLOURS[s.colour].rgb
        if s.kind == "circle":
            draw.ellipse((x0, y0, x1, y1), fill=fill)
        elif s.kind == "square":
            draw.rectangle((x0, y0, x1, y1), fill=fill)
        else:
            draw.polygon([(s.cx, y0), (x0, y1), (x1, y1)], fill=fill)
    return img


def _options_line(lang: str) -> str:
    words = ", ".join(getattr(c, lang) for c in PALETTE)
    return f" Ответьте одним словом: {words}." if lang == "ru" else f" Answer with one word: {words}."


def _count(rng: random.Random, level: str) -> tuple[list[tuple[str, str, int]], dict[str, Any]]:
    lo, hi = _LEVELS[level][1]
    halves = _LEVELS[level][2]
    specs = [
        (rng.choice(list(KINDS)), rng.choice(PALETTE).key, rng.randint(*halves))
        for _ in range(rng.randint(lo, hi))
    ]
    by = rng.choice({"easy": ("all", "kind"), "medium": ("kind", "colour"), "hard": ("both",)}[level])
    kind = rng.choice(list(KINDS)) if by in ("kind", "both") else None
    colour = rng.choice(specs)[1] if by in ("colour", "both") else None
    if by == "both" and rng.random() < 0.7:  # mostly ask about a pair that is present
        kind, colour = rng.choice(specs)[:2]
    return specs, {"ask": "count", "kind": kind, "colour": colour}


def _count_question(query: dict[str, Any], lang: str) -> str:
    kind = KINDS[query["kind"]] if query["kind"] else None
    colour = _COLOURS[query["colour"]] if query["colour"] else None
    if lang == "ru":
        what = " ".join(
            w for w in (colour.ru_gen_pl if colour else "", kind.ru_gen_pl if kind else "фигур") if w
        )
        total = "всего " if not kind and not colour else ""
        return f"Сколько {total}{what} на картинке? Ответьте одним числом."
    what = " ".join(w for w in (colour.en if colour else "", kind.en_pl if kind else "shapes") if w)
    return (
        f"How many {what} are there in the picture{' in total' if not kind and not colour else ''}? "
        "Answer with a single number."
    )


def _colour(rng: random.Random, level: str) -> tuple[list[tuple[str, str, int]], dict[str, Any]]:
    lo, hi = _LEVELS[level][1]
    halves = _LEVELS[level][2]
    kind = rng.choice(list(KINDS))
    others = [k for k in KINDS if k != kind]
    specs = [(kind, rng.choice(PALETTE).key, rng.randint(*halves))]
    specs += [
        (rng.choice(others), rng.choice(PALETTE).key, rng.randint(*halves))
        for _ in range(rng.randint(lo, hi) - 1)
    ]
    rng.shuffle(specs)
    return specs, {"ask": "colour", "kind": kind}


def _size(rng: random.Random, level: str) -> tuple[list[tuple[str, str, int]], dict[str, Any]]:
    lo, hi = _LEVELS[level][1]
    small, large = _LEVELS[level][2]
    kind = rng.choice(list(KINDS))
    same = {"easy": 2, "medium": 3, "hard": rng.randint(3, 4)}[level]
    colours = rng.sample([c.key for c in PALETTE], same)
    extreme = "smallest" if level == "hard" and rng.random() < 0.5 else "largest"
    if extreme == "largest":
        target = rng.randint(max(small * 3 // 2 + 2, large - 6), large)
        rest = [rng.randint(small, target * 2 // 3) for _ in range(same - 1)]
    else:
        target = rng.randint(small, small + 3)
        rest = [rng.randint(target * 3 // 2 + 1, large) for _ in range(same - 1)]
    specs = [(kind, colours[0], target)] + [(kind, c, h) for c, h in zip(colours[1:], rest, strict=True)]
    others = [k for k in KINDS if k != kind]
    specs += [
        (rng.choice(others), rng.choice(PALETTE).key, rng.randint(small, large))
        for _ in range(max(0, rng.randint(lo, hi) - same))
    ]
    rng.shuffle(specs)
    return specs, {"ask": "size", "kind": kind, "extreme": extreme}


def _position_pair(placed: list[Shape], rng: random.Random) -> dict[str, Any] | None:
    """Two uniquely described shapes clearly apart along a random axis, or None."""
    unique = [s for s in placed if sum(o.kind == s.kind and o.colour == s.colour for o in placed) == 1]
    pairs = [(a, b) for a in unique for b in unique if a is not b]
    rng.shuffle(pairs)
    for axis in rng.sample(["x", "y"], 2):
        for a, b in pairs:
            d = (a.cx - b.cx) if axis == "x" else (a.cy - b.cy)
            if abs(d) > a.half + b.half + _GAP:
                rel = ("right" if d > 0 else "left") if axis == "x" else ("below" if d > 0 else "above")
                return {
                    "ask": "position",
                    "axis": axis,
                    "a": [a.colour, a.kind],
                    "b": [b.colour, b.kind],
                    "relation": rel,
                }
    return None


_REL = {"left": "слева", "right": "справа", "above": "выше", "below": "ниже"}


def _question(query: dict[str, Any], lang: str) -> tuple[str, str]:
    """Question text and the answer word for the colour, size and position asks."""
    ask = query["ask"]
    if ask == "position":
        (ca, ka), (cb, kb) = query["a"], query["b"]
        a_c, a_k, b_c, b_k = _COLOURS[ca], KINDS[ka], _COLOURS[cb], KINDS[kb]
        pair = ("left", "right") if query["axis"] == "x" else ("above", "below")
        if lang == "ru":
            ru = (_REL[pair[0]], _REL[pair[1]])
            text = (
                f"Где находится {a_c.ru} {a_k.ru} относительно {b_c.ru_gen_sg} {b_k.ru_gen_sg}: {ru[0]} или "
                f"{ru[1]}? "
                f"Ответьте одним словом: {ru[0]} или {ru[1]}."
            )
            return text, _REL[query["relation"]]
        where = "to the left or to the right of" if query["axis"] == "x" else "above or below"
        text = (
            f"Is the {a_c.en} {a_k.en} {where} the {b_c.en} {b_k.en}? Answer with one word: {pair[0]} or "
            f"{pair[1]}."
        )
        return text, query["relation"]
    kind = KINDS[query["kind"]]
    if ask == "colour":
        text = f"Какого цвета {kind.ru}?" if lang == "ru" else f"What colour is the {kind.en}?"
    elif lang == "ru":
        text = f"Какого цвета самый {'большой' if query['extreme'] == 'largest' else 'маленький'} {kind.ru}?"
    else:
        text = f"What colour is the {query['extreme']} {kind.en}?"
    return text + _options_line(lang), ""


def _answer_of(query: dict[str, Any], placed: list[Shape], lang: str) -> str:
    """The gold answer from the placed scene (count, colour, size asks)."""
    if query["ask"] == "count":
        return str(
            sum((query["kind"] in (None, s.kind)) and (query["colour"] in (None, s.colour)) for s in placed)
        )
    same = [s for s in placed if s.kind == query["kind"]]
    pick = (
        same[0]
        if query["ask"] == "colour"
        else (max if query["extreme"] == "largest" else min)(same, key=lambda s: s.half)
    )
    colour: Colour = _COLOURS[pick.colour]
    return colour.ru if lang == "ru" else colour.en


def _make(index: int, rng: random.Random, level: str, lang: str, set_dir: Path) -> dict[str, Any]:
    side, counts, halves = _LEVELS[level]
    ask = _ASKS[(index // 6) % 4]
    for _ in range(100):
        if ask == "position":
            n = rng.randint(max(2, counts[0]), counts[1])
            specs = [
                (rng.choice(list(KINDS)), rng.choice(PALETTE).key, rng.randint(*halves)) for _ in range(n)
            ]
            query: dict[str, Any] | None = {}
        else:
            specs, query = {
                "count": lambda: _count(rng, level),
                "colour": lambda: _colour(rng, level),
                "size": lambda: _size(rng, level),
            }[ask]()
        placed = _place(rng, specs, side)
        if placed is None:
            continue
        if ask == "position":
            query = _position_pair(placed, rng)
            if query is None:
                continue
        assert query is not None
        break
    else:  # pragma: no cover - the levels leave plenty of room
        raise SourceError(f"shapes: could not lay out instance {index}")
    if ask == "count":
        question, answer = _count_question(query, lang), _answer_of(query, placed, lang)
    else:
        question, answer = _question(query, lang)
        answer = answer or _answer_of(query, placed, lang)
    rel = f"images/{index:05d}.png"
    save_png(draw_scene(placed, side), set_dir / rel)
    return {
        "task": f"shapes_{ask}",
        "question": question,
        "answer": answer,
        "answer_type": "number" if ask == "count" else "word",
        "image": rel,
        "data": {"query": query, "shapes": [s._asdict() for s in placed], "side": side},
    }


def _maker() -> MakeItem:
    return _make


@register_generator("shapes")
def shapes(
    out_dir: Path,
    /,
    *,
    seed: int = 0,
    n: int | None = None,
    difficulty: str = "mixed",
    lang: str = "mixed",
    workers: int = 1,
) -> Path:
    """Scenes of coloured shapes: counting, colour, size and relative-position questions."""
    opts = resolve_options("shapes", seed=seed, n=n, default_n=48, difficulty=difficulty, lang=lang)
    return build_set(out_dir, opts, _maker, version=VERSION, workers=workers)
