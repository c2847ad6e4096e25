"""``video-motion``: coloured squares that appear, move and vanish (PyAV, MPEG-4 in MP4).

Tasks: ``video_count`` (how many squares appear), ``video_direction`` (where one moves),
``video_order`` (which colour appears first / second / last) and ``video_event`` (how many whole
seconds after the start a square appears or vanishes). Squares appear and vanish exactly on second
boundaries and move along their own lane (all lanes horizontal or all vertical), so they never
cross. ``fps``, ``seconds`` and ``size`` set the frame rate, length and frame side.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from omnieval.benchmarks.synthetic._core import MakeItem, build_set, check_int, resolve_options
from omnieval.benchmarks.synthetic._draw import PALETTE
from omnieval.sources.plugins import register_generator

__all__ = ["DIRECTIONS", "encode", "frames_of", "video_motion"]

VERSION = "1"
DIRECTIONS = {"left": "влево", "right": "вправо", "up": "вверх", "down": "вниз"}
_COLOURS = {c.key: c for c in PALETTE}
_COUNT = {"easy": (1, 2), "medium": (2, 3), "hard": (3, 4)}
_ASKS = ("count", "direction", "order", "event")


def _objects(
    rng: random.Random, level: str, *, seconds: int, size: int, at_least: int = 1
) -> tuple[list[dict[str, Any]], str]:
    """Squares with colour, lane, direction, appear/vanish seconds (distinct appear seconds) and path."""
    side = max(6, size // 8)
    k = min(max(at_least, rng.randint(*_COUNT[level])), seconds - 1)
    axis = rng.choice(["x", "y"])
    lanes = size // (side + side // 2)
    lane_ids = rng.sample(range(lanes), k)
    appear = sorted(rng.sample(range(seconds - 1), k))
    rng.shuffle(appear)
    out = []
    for colour, lane, start in zip(rng.sample([c.key for c in PALETTE], k), lane_ids, appear, strict=True):
        end = rng.randint(start + 1, seconds)
        forward = rng.random() < 0.5
        direction = ("right" if forward else "left") if axis == "x" else ("down" if forward else "up")
        far = size - side - 2
        begin, finish = (2, far) if forward else (far, 2)
        across = lane * (side + side // 2) + side // 4
        out.append(
            {
                "colour": colour,
                "appear": start,
                "vanish": end,
                "direction": direction,
                "axis": axis,
                "lane_offset": across,
                "from": begin,
                "to": finish,
                "side": side,
            }
        )
    return out, axis


def frames_of(objects: list[dict[str, Any]], *, fps: int, seconds: int, size: int) -> list[Any]:
    """Every frame as a Pillow image."""
    from PIL import Image, ImageDraw

    frames = []
    for f in range(fps * seconds):
        img = Image.new("RGB", (size, size), "white")
        draw = ImageDraw.Draw(img)
        for o in objects:
            first, last = o["appear"] * fps, o["vanish"] * fps
            if not first <= f < last:
                continue
            progress = (f - first) / max(1, last - first - 1)
            along = round(o["from"] + (o["to"] - o["from"]) * progress)
            x, y = (along, o["lane_offset"]) if o["axis"] == "x" else (o["lane_offset"], along)
            draw.rectangle((x, y, x + o["side"] - 1, y + o["side"] - 1), fill=_COLOURS[o["colour"]].rgb)
        frames.append(img)
    return frames


def encode(frames: list[Any], path: Path, *, fps: int) -> None:
    """MPEG-4 Part 2 in MP4 at high quality, single-threaded and bit-exact (same frames, same bytes)."""
    import av

    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w", options={"fflags": "+bitexact"}) as container:
        stream: Any = container.add_stream("mpeg4", rate=fps, options={"flags": "+bitexact", "qscale": "2"})
        stream.width, stream.height, stream.pix_fmt = frames[0].width, frames[0].height, "yuv420p"
        stream.thread_count = 1
        for img in frames:
            for packet in stream.encode(av.VideoFrame.from_image(img)):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def _ordinal(rank: int, k: int, lang: str) -> str:
    if rank == k - 1 and k > 2:
        return "последним" if lang == "ru" else "last"
    return ("первым", "вторым", "третьим")[rank] if lang == "ru" else ("first", "second", "third")[rank]


def _question(
    ask: str, objects: list[dict[str, Any]], lang: str, rng: random.Random, seconds: int
) -> tuple[str, str, str, dict[str, Any]]:
    """(question, answer, answer type, query)."""
    ru = lang == "ru"
    num = " Ответьте одним числом." if ru else " Answer with a single number."
    target = rng.choice(objects)
    colour = _COLOURS[target["colour"]]
    if ask == "count" or (ask == "order" and len(objects) < 2):
        q = (
            "Сколько разноцветных квадратов появляется в видео?"
            if ru
            else "How many coloured squares appear in the video?"
        )
        return q + num, str(len(objects)), "number", {"ask": "count"}
    if ask == "direction":
        q = (
            f"В каком направлении движется {colour.ru} квадрат? Ответьте одним словом: влево, вправо, вверх "
            "или вниз."
            if ru
            else f"In which direction does the {colour.en} square move? Answer with one word: left, right, "
            "up or down."
        )
        return (
            q,
            DIRECTIONS[target["direction"]] if ru else target["direction"],
            "word",
            {"ask": "direction", "colour": target["colour"]},
        )
    if ask == "order":
        ranked = sorted(objects, key=lambda o: o["appear"])
        rank = rng.randrange(len(ranked))
        word = _ordinal(rank, len(ranked), lang)
        names = ", ".join(getattr(_COLOURS[o["colour"]], lang) for o in objects)
        q = (
            f"Какого цвета квадрат появляется {word}? Ответьте одним словом: {names}."
            if ru
            else f"What colour is the square that appears {word}? Answer with one word: {names}."
        )
        picked = _COLOURS[ranked[rank]["colour"]]
        return q, picked.ru if ru else picked.en, "word", {"ask": "order", "rank": rank}
    vanishes = target["vanish"] < seconds and rng.random() < 0.5
    if ru:
        q = (
            f"Через сколько секунд от начала видео {'исчезает' if vanishes else 'появляется'} {colour.ru} "
            "квадрат?"
        )
    else:
        q = (
            f"How many seconds after the start of the video does the {colour.en} square "
            f"{'disappear' if vanishes else 'appear'}?"
        )
    return (
        q + num,
        str(target["vanish"] if vanishes else target["appear"]),
        "number",
        {"ask": "event", "event": "vanish" if vanishes else "appear", "colour": target["colour"]},
    )


def _make_item(fps: int, seconds: int, size: int) -> MakeItem:
    def make(index: int, rng: random.Random, level: str, lang: str, set_dir: Path) -> dict[str, Any]:
        ask = _ASKS[(index // 6) % 4]
        objects, _ = _objects(rng, level, seconds=seconds, size=size, at_least=2 if ask == "order" else 1)
        question, answer, answer_type, query = _question(ask, objects, lang, rng, seconds)
        rel = f"videos/{index:05d}.mp4"
        encode(frames_of(objects, fps=fps, seconds=seconds, size=size), set_dir / rel, fps=fps)
        return {
            "task": f"video_{query['ask']}",
            "question": question,
            "answer": answer,
            "answer_type": answer_type,
            "video": rel,
            "data": {"fps": fps, "seconds": seconds, "size": size, "objects": objects, "query": query},
        }

    return make


@register_generator("video-motion")
def video_motion(
    out_dir: Path,
    /,
    *,
    seed: int = 0,
    n: int | None = None,
    difficulty: str = "mixed",
    lang: str = "mixed",
    fps: int = 8,
    seconds: int = 4,
    size: int = 128,
    workers: int = 1,
) -> Path:
    """Short clips of moving squares: count, direction, order of appearance, event second."""
    opts = resolve_options("video-motion", seed=seed, n=n, default_n=24, difficulty=difficulty, lang=lang)
    check_int("video-motion", "fps", fps, low=1, high=60)
    check_int("video-motion", "seconds", seconds, low=2, high=60)
    check_int("video-motion", "size", size, low=64, high=640)
    return build_set(
        out_dir,
        opts,
        _make_item,
        version=VERSION,
        workers=workers,
        fps=fps,
        seconds=seconds,
        size=size - size % 2,
    )  # yuv420p needs even sides
