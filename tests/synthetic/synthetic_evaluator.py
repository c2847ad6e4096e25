"""An evaluator independent of the generators: re-derives every answer from the written files.

Shapes are re-found in the pixels (connected components per palette colour, kind from fill ratio),
bar heights and pie areas are measured, clock hands are read from their pixels' angles, videos are
decoded and squares tracked frame by frame; tables, charts and math are recomputed from the data
the picture was drawn from (plus pixel spot checks). Only the palette, the word tables and the plot
geometry are shared with the generators: never their answer logic.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from omnieval.benchmarks.synthetic._draw import PALETTE
from omnieval.benchmarks.synthetic.text import ALPHABETS
from omnieval.benchmarks.synthetic.video import DIRECTIONS

COLOURS = {c.key: c for c in PALETTE}
POSITION_RU = {"left": "слева", "right": "справа", "above": "выше", "below": "ниже"}


def rows_of(manifest: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines()]


def _colour_word(key: str, lang: str) -> str:
    return getattr(COLOURS[key], lang)


def pixel_shapes(img: Image.Image) -> list[dict[str, Any]]:
    """Every shape in the picture: colour, kind (by how much of its box it fills), side, centre."""
    from scipy import ndimage

    arr = np.asarray(img.convert("RGB"))
    found = []
    for colour in PALETTE:
        labels, _ = ndimage.label(np.all(arr == colour.rgb, axis=-1))
        areas = np.bincount(labels.ravel())
        for index, (rows, cols) in enumerate(ndimage.find_objects(labels), start=1):
            w, h = cols.stop - cols.start, rows.stop - rows.start
            fill = areas[index] / (w * h)
            kind = "square" if fill > 0.93 else "circle" if fill > 0.68 else "triangle"
            found.append(
                {
                    "colour": colour.key,
                    "kind": kind,
                    "side": int(max(w, h)),
                    "cx": (cols.start + cols.stop - 1) / 2,
                    "cy": (rows.start + rows.stop - 1) / 2,
                }
            )
    return found


def shapes_answer(row: dict[str, Any], set_dir: Path) -> str:
    found = pixel_shapes(Image.open(set_dir / row["image"]))
    assert len(found) == len(row["data"]["shapes"]), "shapes touch or are missing"
    q, lang = row["data"]["query"], row["lang"]
    if q["ask"] == "count":
        return str(sum(q["kind"] in (None, s["kind"]) and q["colour"] in (None, s["colour"]) for s in found))
    if q["ask"] in ("colour", "size"):
        same = [s for s in found if s["kind"] == q["kind"]]
        if q["ask"] == "colour":
            assert len(same) == 1
            return _colour_word(same[0]["colour"], lang)
        sides = sorted(s["side"] for s in same)
        pick = (
            max(same, key=lambda s: s["side"])
            if q["extreme"] == "largest"
            else min(same, key=lambda s: s["side"])
        )
        assert sides.count(pick["side"]) == 1, "extreme is not unique"
        return _colour_word(pick["colour"], lang)
    [a] = [s for s in found if [s["colour"], s["kind"]] == q["a"]]
    [b] = [s for s in found if [s["colour"], s["kind"]] == q["b"]]
    if q["axis"] == "x":
        rel = "right" if a["cx"] > b["cx"] else "left"
    else:
        rel = "below" if a["cy"] > b["cy"] else "above"
    return POSITION_RU[rel] if lang == "ru" else rel


def _bar_values(img: Image.Image, plot: dict[str, Any]) -> list[float]:
    """Bar heights measured in pixels, converted to values with the axis scale."""
    arr = np.asarray(img.convert("RGB"))
    span = plot["bottom"] - plot["top"]
    out = []
    for x in plot["x"]:
        column = np.all(arr[:, round(x)] == COLOURS["blue"].rgb, axis=-1)
        out.append(column.sum() * plot["axis_max"] / span)
    return out


def _pie_shares(img: Image.Image, k: int) -> list[float]:
    arr = np.asarray(img.convert("RGB"))[:, :262]  # the pie only, not the legend swatches
    counts = [np.all(arr == PALETTE[i].rgb, axis=-1).sum() for i in range(k)]
    return [100 * c / sum(counts) for c in counts]


def chart_values(row: dict[str, Any], set_dir: Path) -> list[int]:
    """The chart's values as measured from the picture (bars, pie) or spot-checked (line markers)."""
    data = row["data"]
    img = Image.open(set_dir / row["image"])
    values = data["values"]
    if data["kind"] == "bar":
        measured = _bar_values(img, data["plot"])
        assert all(abs(m - v) <= 0.5 for m, v in zip(measured, values, strict=True)), (measured, values)
        return [round(m) for m in measured]
    if data["kind"] == "pie":
        shares = _pie_shares(img, len(values))
        assert sum(values) == 100 and all(abs(s - v) < 1.0 for s, v in zip(shares, values, strict=True)), (
            shares
        )
        return values
    plot = data["plot"]
    span = plot["bottom"] - plot["top"]
    for x, v in zip(plot["x"], values, strict=True):
        y = plot["bottom"] - v * span / plot["axis_max"]
        assert img.getpixel((round(x), round(y))) == (0, 0, 0), "no marker where the value should be"
    return values


def charts_answer(row: dict[str, Any], set_dir: Path) -> str:
    values, labels, q = chart_values(row, set_dir), row["data"]["labels"], row["data"]["query"]
    if q["op"] == "value":
        return str(values[q["i"]])
    if q["op"] == "argmax_label":
        assert values.count(max(values)) == 1
        return labels[values.index(max(values))]
    if q["op"] == "change":
        return str(values[q["j"]] - values[q["i"]])
    if q["op"] == "sum":
        return str(values[q["i"]] + values[q["j"]])
    return str(max(values) - min(values))


def tables_answer(row: dict[str, Any], _set_dir: Path) -> str:
    data, q = row["data"], row["data"]["query"]
    cells = np.array(data["cells"])
    if q["op"] == "cell":
        return str(cells[q["row"], q["col"]])
    if q["op"] == "row_sum":
        return str(cells[q["row"]].sum())
    if q["op"] == "col_sum":
        return str(cells[:, q["col"]].sum())
    column = list(cells[:, q["col"]])
    assert column.count(max(column)) == 1
    return data["rows"][column.index(max(column))]


def text_answer(row: dict[str, Any], set_dir: Path) -> str:
    data = row["data"]
    allowed = set(ALPHABETS[data["script"]]) | set(ALPHABETS[data["script"]].upper()) | set("0123456789 ")
    assert set(data["text"]) <= allowed and data["text"].strip() == data["text"]
    ink = np.asarray(Image.open(set_dir / row["image"]).convert("L")) < 100
    ys, xs = np.nonzero(ink)
    assert len(xs) > 50, "no text drawn"
    assert xs.min() > 2 and ys.min() > 2 and xs.max() < ink.shape[1] - 3 and ys.max() < ink.shape[0] - 3, (
        "clipped"
    )
    return str(data["text"])


def _hand_angle(arr: np.ndarray, rgb: list[int], cx: int, cy: int) -> float:
    ys, xs = np.nonzero(np.all(arr == rgb, axis=-1))
    assert len(xs) > 20, "hand not visible"
    return math.degrees(math.atan2(float(np.mean(xs - cx)), float(np.mean(cy - ys)))) % 360


def clocks_answer(row: dict[str, Any], set_dir: Path) -> str:
    data = row["data"]
    arr = np.asarray(Image.open(set_dir / row["image"]).convert("RGB"))
    cx, cy = data["face"]["cx"], data["face"]["cy"]
    minute = round(_hand_angle(arr, data["minute_rgb"], cx, cy) / 6) % 60
    hour_angle = _hand_angle(arr, data["hour_rgb"], cx, cy)
    hour = round((hour_angle - 0.5 * minute) / 30) % 12
    return f"{hour or 12}:{minute:02d}"


def math_answer(row: dict[str, Any], _set_dir: Path) -> str:
    import sympy

    expr = row["data"]["expr"]
    if "=" not in expr:
        value = sympy.sympify(expr)
    else:
        left, right = expr.split("=")
        [value] = sympy.solve(sympy.Eq(sympy.sympify(left), sympy.sympify(right)), sympy.Symbol("x"))
    assert value == int(value)
    return str(int(value))


def track_squares(path: Path, fps: int) -> dict[str, dict[str, Any]]:
    """Decode a clip; per colour: first and last frame seen and the centres there."""
    import av

    seen: dict[str, dict[str, Any]] = {}
    with av.open(str(path)) as container:
        for index, frame in enumerate(container.decode(video=0)):
            arr = frame.to_ndarray(format="rgb24")[::2, ::2].astype(np.int16)  # every other pixel is plenty
            refs = np.array([c.rgb for c in PALETTE] + [(255, 255, 255)], dtype=np.int16)
            dist = np.abs(arr[:, :, None, :] - refs[None, None]).sum(axis=-1)  # L1 to each colour
            nearest, best = dist.argmin(axis=-1), dist.min(axis=-1)
            for k, colour in enumerate(PALETTE):
                mask = (nearest == k) & (best < 80)
                if (
                    mask.sum() < 10
                ):  # a square covers at least 8×8 of the halved frame; codec fringes are thin
                    continue
                ys, xs = np.nonzero(mask)
                centre = (float(xs.mean()), float(ys.mean()))
                info = seen.setdefault(colour.key, {"first": index, "start": centre})
                info["last"], info["end"] = index, centre
    for info in seen.values():
        info["appear"], info["vanish"] = info["first"] / fps, (info["last"] + 1) / fps
    return seen


def video_answer(row: dict[str, Any], set_dir: Path) -> str:
    data, q, lang = row["data"], row["data"]["query"], row["lang"]
    seen = track_squares(set_dir / row["video"], data["fps"])
    assert all(float(i["appear"]).is_integer() for i in seen.values()), "appearance not on a second boundary"
    if q["ask"] == "count":
        return str(len(seen))
    if q["ask"] == "direction":
        info = seen[q["colour"]]
        dx, dy = info["end"][0] - info["start"][0], info["end"][1] - info["start"][1]
        way = ("right" if dx > 0 else "left") if abs(dx) > abs(dy) else ("down" if dy > 0 else "up")
        return DIRECTIONS[way] if lang == "ru" else way
    if q["ask"] == "order":
        ranked = sorted(seen, key=lambda key: seen[key]["first"])
        return _colour_word(ranked[q["rank"]], lang)
    return str(round(seen[q["colour"]][q["event"]]))


ANSWERS = {
    "shapes": shapes_answer,
    "charts": charts_answer,
    "tables": tables_answer,
    "text": text_answer,
    "clocks": clocks_answer,
    "math": math_answer,
    "video-motion": video_answer,
}
