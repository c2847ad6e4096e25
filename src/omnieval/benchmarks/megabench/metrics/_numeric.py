"""MEGA-Bench numeric metrics.

``general_single_numerical_match`` follows the original's pipeline: strip LaTeX math brackets, keep
what follows the first ``=``/``≈``/``\\approx``, clean units (π → 3.14, % → /100, currency and
degree signs), read the text with sympy's ``parse_latex``, then ``float``, then evaluate it. The
original evaluates with Python ``eval`` in a child process; here a small arithmetic-only evaluator
gives the same value for everything ``eval`` could compute without imports, and never runs code.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from omnieval.benchmarks.megabench.metrics._convert import safe_literal, str_to_list
from omnieval.benchmarks.megabench.metrics._strings import simple_str_match
from omnieval.benchmarks.megabench.metrics._timeout import MetricTimeout, call_with_timeout

__all__ = [
    "angle_seq_float_rmse",
    "boxed_single_numerical_match",
    "general_single_numerical_match",
    "normalized_rmse",
    "number_rel_diff_ratio",
    "number_value",
    "positive_int_match",
]

_BIN = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_CMP = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_NAMES = {"E": 2.718, "True": True, "False": False, "None": None}
_MATH = {
    "pi": math.pi,
    "e": math.e,
    "sqrt": math.sqrt,
    "log": math.log,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
}


class _Refused(Exception):
    """The expression needs something ``eval`` in the original's child process could not give."""


def _pow(base: Any, exp: Any) -> Any:
    if isinstance(exp, (int, float)) and abs(exp) > 10_000:
        raise _Refused("exponent too large (the original would time out)")
    if isinstance(base, int) and isinstance(exp, int) and base.bit_length() * abs(exp) > 1_000_000:
        raise _Refused("result too large (the original would time out)")
    return base**exp


def _eval_node(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_eval_node(e) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        left, right = _eval_node(node.left), _eval_node(node.right)
        return _pow(left, right) if isinstance(node.op, ast.Pow) else _BIN[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval_node(node.operand))
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
        return _CMP[type(node.ops[0])](_eval_node(node.left), _eval_node(node.comparators[0]))
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "math"
        and node.attr in _MATH
    ):
        return _MATH[node.attr]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
        fn: Any = _eval_node(node.func)
        if callable(fn):
            return fn(*[_eval_node(a) for a in node.args])
    raise _Refused(type(node).__name__)


def arithmetic_eval(text: str) -> Any:
    """Evaluate a plain arithmetic expression; raise for anything else (names, calls, code)."""
    if len(text) > 5000:
        raise _Refused("expression too long")
    return _eval_node(ast.parse(text.strip(), mode="eval").body)


def _floatify(value: Any) -> float | int | None:
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return round(number) if number.is_integer() else number


def _clean_units(text: str) -> str:
    text = text.replace("\\pi", "π")
    text = re.sub(r"(?<![\d}])\\?π", "3.14", text)
    text = re.sub(r"(\d)(\\?π)", r"\1*3.14", text)
    text = re.sub(r"\{(\\?π)\}", "3.14", text)
    text = re.sub(r"\*(\\?π)", "*3.14", text)
    for old, new in (("%", "/100"), ("$", ""), ("¥", ""), ("°C", ""), (" C", ""), ("°", "")):
        text = text.replace(old, new)
    return text


def number_value(text: Any) -> Any:
    """The original's ``number_it``: a number, a list/tuple of values, or None."""
    if isinstance(text, (int, float)):
        return text
    text = _clean_units(text)
    try:
        from sympy.parsing.latex import parse_latex

        text = str(parse_latex(text))
    except ImportError:
        raise
    except Exception:  # any parse failure keeps the raw text, as the original does
        pass
    direct = _floatify(text)
    if direct is not None:
        return direct
    try:
        value = arithmetic_eval(text)
    except (_Refused, SyntaxError, ValueError, TypeError, ArithmeticError, RecursionError, MemoryError):
        return None
    if isinstance(value, (list, tuple)):
        return value
    return _floatify(value)


def _strip_math_brackets(text: str) -> str:
    text = re.sub(r"\\\((.*?)\\\)", r"\1", text)
    return re.sub(r"\\\[(.*?)\\\]", r"\1", text)


def _after_assignment(text: str) -> str:
    match = re.search(r"(?:=|≈|\\approx)\s*(.+)", text)
    return match.group(1).strip() if match else text


def _close(pred: Any, gold: Any) -> bool:
    try:
        if math.isnan(pred):
            return False
        return bool(gold - abs(gold) * 0.01 <= pred <= gold + abs(gold) * 0.01)
    except (TypeError, ValueError):
        return False


def _close_lists(pred: Any, gold: Any) -> bool:
    if not isinstance(pred, list) or len(pred) != len(gold):
        return False
    if any(not isinstance(x, (int, float)) for x in pred):
        return False
    try:
        return all(_close(p, g) for p, g in zip(sorted(pred), sorted(gold), strict=True))
    except TypeError:
        return False


def _numerical_match(pred: Any, gold: Any, *, strict: bool) -> float:
    response = _after_assignment(_strip_math_brackets(pred if isinstance(pred, str) else str(pred)))
    target = _after_assignment(_strip_math_brackets(gold))
    if strict:
        response, target = response.replace("−", "-"), target.replace("−", "-")
    res, tgt = number_value(response), number_value(target)
    if res is None or tgt is None:
        return simple_str_match(response, target)
    if strict and isinstance(res, (list, tuple)) and isinstance(tgt, (list, tuple)):
        return float(_close_lists(list(res), list(tgt)))
    if (isinstance(res, list) and isinstance(tgt, list)) or (
        isinstance(res, tuple) and isinstance(tgt, tuple)
    ):
        return float(_close_lists(res, tgt))
    return float(_close(res, tgt))


MAX_NUMERIC_CHARS = 20_000
"""Longer answers skip number reading (no number is that long) and go to the string fallback."""


def general_single_numerical_match(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """1 when the numbers agree within 1 % (lists: sorted, element-wise); else string fallback."""
    if not isinstance(gold, str):
        raise TypeError("gold answer must be a string")
    if len(str(pred)) > MAX_NUMERIC_CHARS or len(gold) > MAX_NUMERIC_CHARS:
        return simple_str_match(pred, gold, strict=strict)
    try:
        return call_with_timeout(lambda: _numerical_match(pred, gold, strict=strict), 10.0)
    except MetricTimeout:
        return 0.0


def _boxed_end(text: str, start: int) -> int:
    r"""End of ``((?:[^{}]+|\{[^{}]*\})*)\}`` from ``start`` (one nesting level), or -1."""
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "}":
            return i
        if ch == "{":
            close = i + 1
            while close < len(text) and text[close] not in "{}":
                close += 1
            if close == len(text) or text[close] == "{":
                return -1
            i = close
        i += 1
    return -1


def _boxed(text: str) -> str:
    """The first ``\\boxed{...}`` content (braces nested one level deep), else the text.

    Same result as the original's regex ``\\boxed\\{((?:[^{}]+|\\{[^{}]*\\})*)\\}``, whose nested
    quantifiers backtrack exponentially on an unclosed box; this scan is linear.
    """
    at = text.find("\\boxed{")
    while at >= 0:
        end = _boxed_end(text, at + len("\\boxed{"))
        if end >= 0:
            return text[at + len("\\boxed{") : end]
        at = text.find("\\boxed{", at + 1)
    return text


def boxed_single_numerical_match(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """``\\boxed{...}`` content of both sides, then the general numerical match (10 s limit)."""
    response = pred if isinstance(pred, str) else str(pred)
    target = _boxed(gold)
    if len(response) > MAX_NUMERIC_CHARS:
        return simple_str_match(response, target)
    try:
        return call_with_timeout(lambda: _numerical_match(_boxed(response), target, strict=strict), 10.0)
    except MetricTimeout:
        return simple_str_match(response, target)


def number_rel_diff_ratio(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """``max(0, 1 - |pred - gold| / |gold|)``; a gold of 0 scores 0 (division error)."""
    value = pred if isinstance(pred, (int, float)) else safe_literal(pred)
    if not isinstance(value, (int, float)) or (strict and isinstance(value, bool)):
        return 0.0
    target = safe_literal(gold)
    if strict and target == 0:
        return 1.0 if value == 0 else 0.0
    return max(0.0, 1 - math.fabs((value - target) / target))


def positive_int_match(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Integer equality; -1 (not applicable) when both are ≤ 0."""
    try:
        value = safe_literal(pred)
    except (SyntaxError, ValueError):
        return 0.0
    if not gold:
        return 0.0
    target = safe_literal(gold)
    if not isinstance(target, int):
        raise TypeError("gold is not an integer")
    if not isinstance(value, int):
        return 0.0
    if target <= 0 and value <= 0:
        return -1.0
    return 1.0 if value == target else 0.0


def normalized_rmse(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """``1 - min(|pred - gold|, 0.1) / 0.1`` (an absolute error cap, not a relative one)."""
    try:
        err = math.sqrt((safe_literal(pred) - safe_literal(gold)) ** 2)
    except (SyntaxError, ValueError):
        return 0.0
    return 1.0 - min(max(err, 0.0), 0.1) / 0.1


def angle_seq_float_rmse(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Mean absolute angle error (degrees) capped at 10, as ``1 - err / 10``; lengths must match."""
    p, g = str_to_list(pred), str_to_list(gold)
    if len(p) != len(g) or not g:
        return 0.0
    if not all(isinstance(v, (int, float)) for v in (*p, *g)):
        return 0.0
    err = sum(abs(a - b) for a, b in zip(p, g, strict=True)) / len(g)
    if math.isnan(err):
        return 0.0
    return 1.0 - min(max(err, 0.0), 10.0) / 10.0
