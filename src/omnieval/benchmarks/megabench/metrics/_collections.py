"""MEGA-Bench set, sequence and dictionary metrics (field value vs gold value).

Inputs are coerced exactly as the original does (``cast_to_set``, ``str_to_list``,
``cast_to_dict``); an exception anywhere scores the field 0 (the caller catches it). Parity keeps
the original's edge cases: an empty prediction has set precision 1 and empty-vs-empty Jaccard 1.
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from omnieval.benchmarks.megabench.metrics._convert import cast_to_dict, cast_to_set, str_to_list, str_to_set
from omnieval.benchmarks.megabench.metrics._spatial import nbbox_iou_tuple
from omnieval.benchmarks.megabench.metrics._strings import exact_str_match

__all__ = [
    "chess_move_list_jaccard_index",
    "dict_equality",
    "dict_exact_str_match_agg_recall",
    "dict_jaccard_agg_jaccard",
    "dict_nbbox_iou_tuple_agg_jaccard",
    "dict_precision",
    "dict_set_equality_agg_jaccard",
    "jaccard_index",
    "jaccard_index_case_insensitive",
    "longest_common_list_prefix_ratio",
    "sequence_accuracy_case_insensitive",
    "sequence_equality",
    "sequence_equality_case_insensitive",
    "set_equality",
    "set_equality_case_insensitive",
    "set_precision",
    "str_set_equality_comma",
    "str_set_equality_line_break",
]


def _ratio(numerator: int, denominator: int, *, strict: bool) -> float:
    """The original's ``set_relevance_score``: a zero denominator scores 1 (0 in strict mode)."""
    if not denominator:
        return 0.0 if strict else 1.0
    return numerator / denominator


def _jaccard(pred: Any, gold: Any) -> float:
    # ``set()`` first, as the original's ``set_relevance_score``: ``cast_to_set("None")`` is the
    # string ``""``, which must count as an empty set, not fail.
    pred, gold = set(pred), set(gold)
    return _ratio(len(pred & gold), len(pred | gold), strict=False)


def set_equality(pred: Any, gold: Any, *, strict: bool = False) -> float:
    return 1.0 if cast_to_set(pred) == cast_to_set(gold) else 0.0


def set_equality_case_insensitive(pred: Any, gold: Any, *, strict: bool = False) -> float:
    try:
        p = {t.upper() for t in cast_to_set(pred)}
        g = {t.upper() for t in cast_to_set(gold)}
    except AttributeError:
        return 0.0
    return 1.0 if p == g else 0.0


def str_set_equality_line_break(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Sets of lines, lower-cased (a literal backslash-n also splits); lines are not stripped."""
    g = gold.replace("\\n", "\n") if "\\n" in gold else gold
    p = pred.replace("\\n", "\n") if "\\n" in pred else pred
    lines_p = {s.strip() if strict else s for s in p.split("\n")}
    lines_g = {s.strip() if strict else s for s in g.split("\n")}
    return 1.0 if {s.lower() for s in lines_p} == {s.lower() for s in lines_g} else 0.0


def str_set_equality_comma(pred: Any, gold: Any, *, strict: bool = False) -> float:
    p = {i.lower() if isinstance(i, str) else i for i in str_to_set(pred)}
    g = {i.lower() if isinstance(i, str) else i for i in str_to_set(gold)}
    return 1.0 if p == g else 0.0


def jaccard_index(pred: Any, gold: Any, *, strict: bool = False) -> float:
    if pred is None:
        return 0.0
    return _jaccard(cast_to_set(pred), cast_to_set(gold))


def _squash_item(item: str, *, drop_space: bool) -> str:
    item = item.lower()
    for ch in ((" ",) if drop_space else ()) + ("-", "\n", "\t", "_", "."):
        item = item.replace(ch, "")
    return item


def jaccard_index_case_insensitive(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Lower-cased Jaccard; items of tuple answers also lose spaces, ``-``, ``_``, ``.``, tabs and
    newlines."""
    if pred is None:
        return 0.0
    p, g = cast_to_set(pred), cast_to_set(gold)
    first = next(iter(g)) if g else None
    if first is None:
        raise IndexError("empty gold set")
    if isinstance(first, str):
        return _jaccard(
            {i.lower() if isinstance(i, str) else str(i).lower() for i in p}, {i.lower() for i in g}
        )
    if not isinstance(first, tuple):
        return 0.0
    try:
        new_p = {tuple(_squash_item(i, drop_space=True) for i in r) for r in p}
    except (AttributeError, TypeError):
        return 0.0
    new_g = {tuple(_squash_item(i, drop_space=True) for i in t) for t in g}
    return _jaccard(new_p, new_g)


def set_precision(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """|P ∩ G| / |P|; an empty prediction scores 1 in parity (0 in strict mode)."""
    if pred is None:
        return 0.0
    p, g = set(cast_to_set(pred)), set(cast_to_set(gold))  # "None" casts to "": an empty set
    return _ratio(len(p & g), len(p), strict=strict)


def _chess_moves(text: Any) -> set[Any]:
    moves = str_to_set(text)
    return {m.removesuffix("!").removesuffix("#") for m in moves}


def chess_move_list_jaccard_index(pred: Any, gold: Any, *, strict: bool = False) -> float:
    if pred is None:
        return 0.0
    return _jaccard(_chess_moves(pred), _chess_moves(gold))


def sequence_equality(pred: Any, gold: Any, *, strict: bool = False) -> float:
    return 1.0 if str_to_list(pred if isinstance(pred, str) else str(pred)) == str_to_list(gold) else 0.0


def sequence_equality_case_insensitive(pred: Any, gold: Any, *, strict: bool = False) -> float:
    p = [
        i.lower() if isinstance(i, str) else str(i)
        for i in str_to_list(pred if isinstance(pred, str) else str(pred))
    ]
    g = [i.lower() for i in str_to_list(gold)]
    return 1.0 if p == g else 0.0


def sequence_accuracy_case_insensitive(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Fraction of equal positions; lengths must agree."""
    p, g = str_to_list(pred), str_to_list(gold)
    if len(p) != len(g):
        return 0.0
    correct = 0
    for r, t in zip(p, g, strict=True):
        if isinstance(t, str):
            correct += int(r.lower() == t.lower())
        elif isinstance(t, Number) and isinstance(r, Number):
            correct += int(r == t)
    return correct / len(g)


def longest_common_list_prefix_ratio(pred: Any, gold: Any, *, strict: bool = False) -> float:
    p, g = str_to_list(pred), str_to_list(gold)
    k = 0
    while k < min(len(p), len(g)) and p[k] == g[k]:
        k += 1
    return k / len(g)


def dict_equality(pred: Any, gold: Any, *, strict: bool = False) -> float:
    p, g = cast_to_dict(pred), cast_to_dict(gold)
    if not isinstance(p, dict):
        return 0.0
    return 1.0 if p == g else 0.0


def dict_precision(pred: Any, gold: Any, *, strict: bool = False) -> float:
    p, g = cast_to_dict(pred), cast_to_dict(gold)
    if not isinstance(p, dict) or not p:
        return 0.0
    hits = sum(1 for k, v in p.items() if k in g and exact_str_match(v, g[k], strict=strict))
    return hits / len(p)


def dict_exact_str_match_agg_recall(pred: Any, gold: Any, *, strict: bool = False) -> float:
    p, g = cast_to_dict(pred), cast_to_dict(gold)
    if not isinstance(p, dict):
        return 0.0
    scores = [exact_str_match(p.get(k), v, strict=strict) for k, v in g.items()]
    return sum(scores) / len(scores)


def _agg_jaccard(pred: Any, gold: Any, per_key: Any) -> float:
    pred, gold = cast_to_dict(pred), cast_to_dict(gold)
    if not isinstance(pred, dict):
        return 0.0
    keys = set(pred) | set(gold)
    total = sum(per_key(pred.get(k, []), gold.get(k, [])) for k in keys)
    return total / len(keys)


def dict_jaccard_agg_jaccard(pred: Any, gold: Any, *, strict: bool = False) -> float:
    return _agg_jaccard(pred, gold, jaccard_index)


def dict_set_equality_agg_jaccard(pred: Any, gold: Any, *, strict: bool = False) -> float:
    return _agg_jaccard(pred, gold, set_equality)


def dict_nbbox_iou_tuple_agg_jaccard(pred: Any, gold: Any, *, strict: bool = False) -> float:
    return _agg_jaccard(pred, gold, nbbox_iou_tuple)
