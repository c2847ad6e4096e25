"""MEGA-Bench box, point and keypoint metrics on normalised ``[0, 1]`` coordinates.

Boxes are ``(x1, y1, x2, y2)`` (top-left, bottom-right). ``nbbox_iou_tuple`` is precision-like in
parity (each predicted box takes its best IoU; missed gold boxes cost nothing); strict mode divides
by ``max(#pred, #gold)`` so missing boxes count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Number
from typing import Any

from omnieval.benchmarks.megabench.metrics._convert import (
    parse_bboxes_from_xml,
    parse_point_from_xml,
    safe_literal,
    str_to_bboxes,
    str_to_coords,
)

__all__ = [
    "box_iou",
    "nbbox_iou_sequence",
    "nbbox_iou_single",
    "nbbox_iou_tuple",
    "sequence_coords_similarity",
    "xml_nbbox_iou_single",
    "xml_norm_point_distance",
    "xml_norm_point_in_bbox",
]


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two corner-form boxes (0 when the union is empty)."""
    w = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _best_ious(pred: Sequence[Any], gold: Sequence[Any]) -> list[float]:
    return [max([0.0, *(box_iou(p, g) for g in gold)]) for p in pred]


def nbbox_iou_tuple(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Mean over predicted boxes of their best IoU with any gold box."""
    p = pred if isinstance(pred, (tuple, list)) else str_to_bboxes(pred)
    g = gold if isinstance(gold, (tuple, list)) else str_to_bboxes(gold)
    try:
        scores = _best_ious(p, g)
    except (TypeError, IndexError, ValueError):
        return 0.0
    if not scores:
        return 1.0 if strict and not g else 0.0
    return sum(scores) / (max(len(p), len(g)) if strict else len(scores))


def nbbox_iou_single(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """IoU of one predicted box with one gold box."""
    target = safe_literal(gold)
    try:
        box = safe_literal(pred)
    except SyntaxError:
        return 0.0
    try:
        return float(_best_ious([box], [target])[0])
    except (TypeError, IndexError, ValueError):
        return 0.0


def nbbox_iou_sequence(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Per-index IoU of two equally long box sequences (tracking), averaged."""
    p = (
        pred
        if isinstance(pred, (tuple, list))
        else str_to_bboxes(pred if isinstance(pred, str) else str(pred))
    )
    g = gold if isinstance(gold, (tuple, list)) else str_to_bboxes(gold)
    if len(p) != len(g) or not g:
        return 0.0
    return sum(_best_ious([a], [b])[0] for a, b in zip(p, g, strict=True)) / len(g)


def xml_nbbox_iou_single(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """``<box>`` tags on both sides, then as :func:`nbbox_iou_tuple`."""
    p = pred if isinstance(pred, (tuple, list)) else parse_bboxes_from_xml(pred)
    g = gold if isinstance(gold, (tuple, list)) else parse_bboxes_from_xml(gold)
    if not p:
        return 0.0
    if isinstance(p[0], Number) and len(p) == 4:
        p = [p]
    scores = _best_ious(p, g)
    return sum(scores) / len(scores) if scores else 0.0


def _point(value: Any) -> tuple[float, ...]:
    if not isinstance(value, (tuple, list)):
        point = parse_point_from_xml(value)
        if not point:
            raise ValueError("no single <point> tag")
    elif len(value) != 2:
        raise ValueError("point is not 2-D")
    else:
        point = tuple(value)
    if not all(0 <= c <= 1 for c in point):
        raise ValueError("point is not normalised")
    return point


def xml_norm_point_distance(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """``max(0, 1 - L2 distance)`` between two ``<point>x, y</point>`` tags."""
    try:
        p, g = _point(pred), _point(gold)
    except ValueError:
        return 0.0
    return max(0.0, 1.0 - math.dist(p, g))


def xml_norm_point_in_bbox(pred: Any, context: dict[str, Any], *, strict: bool = False) -> float:
    """1 when the predicted point lies in any acceptable box of ``eval_context['bounding_boxes']``."""
    boxes = [str_to_bboxes(b)[0] for b in context["bounding_boxes"]]
    if not boxes:
        raise ValueError("eval_context['bounding_boxes'] is empty")
    if not isinstance(pred, (tuple, list)):
        point = parse_point_from_xml(pred)
        if not point:
            return 0.0
    elif len(pred) != 2:
        return 0.0
    else:
        point = tuple(pred)
    x, y = point
    return 1.0 if any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in boxes) else 0.0


def sequence_coords_similarity(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Mean over keypoints of ``exp(-10 d / sqrt 2)``; shapes must match."""
    import numpy as np

    p = pred if isinstance(pred, (tuple, list)) else str_to_coords(pred)
    g = gold if isinstance(gold, (tuple, list)) else str_to_coords(gold)
    try:
        arr_p = np.array(p, dtype=float)
    except (ValueError, TypeError):
        return 0.0
    arr_g = np.array(g, dtype=float)
    if arr_p.shape != arr_g.shape or arr_p.ndim != 2:
        return 0.0
    dist = np.linalg.norm(arr_p - arr_g, axis=1) / math.sqrt(2)
    score = float(np.mean(np.exp(-10 * dist)))
    return 0.0 if math.isnan(score) else score
