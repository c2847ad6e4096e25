"""A tiny, safe expression language for the templates' constraints and Yes/No rules.

Rules are data (``tasks/*.yaml``), so they are parsed with :mod:`ast` and only a whitelist of nodes is
accepted: names (slot values), string/number constants, comparisons (chained too), ``and``/``or``/``not``,
``+ - * %``, tuple/list/set literals and calls of knowledge-base lookups (``size(s)``). Lookups
raise :class:`Ambiguous` for a value that is ``null`` in the knowledge base: such a configuration is never
sampled.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any

from omnieval.errors import SourceError

__all__ = ["Ambiguous", "Expr", "compile_expr"]

_OPERATORS = (
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.In,
    ast.NotIn,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Mod,
)


class Ambiguous(Exception):
    """A knowledge-base lookup hit a value marked ambiguous (``null``)."""


Lookup = Callable[[Any], Any]


class Expr:
    """A compiled rule: ``expr(values, lookups) -> value``.

    The tree is checked against a whitelist first (no attributes, subscripts, lambdas or builtins), then
    compiled once; evaluation runs with no builtins and only the slot values and lookups in scope.
    """

    def __init__(self, source: str, tree: ast.Expression) -> None:
        self.source = source
        self._tree = tree
        self._code = compile(tree, f"<rule {source!r}>", "eval")

    def __call__(self, values: Mapping[str, Any], lookups: Mapping[str, Lookup]) -> Any:
        return eval(self._code, {"__builtins__": {}, **lookups}, dict(values))

    def names(self) -> set[str]:
        """Slot names the rule reads."""
        return {n.id for n in ast.walk(self._tree) if isinstance(n, ast.Name)} - self.functions()

    def functions(self) -> set[str]:
        """Lookups the rule calls."""
        return {
            n.func.id
            for n in ast.walk(self._tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }


_ALLOWED = (
    ast.Expression,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.UnaryOp,
    ast.Not,
    ast.USub,
    ast.BinOp,
    ast.Compare,
    ast.Name,
    ast.Load,
    ast.Constant,
    ast.Call,
    ast.Tuple,
    ast.List,
    ast.Set,
    *_OPERATORS,
)


def compile_expr(source: str, *, where: str) -> Expr:
    """Parse and check ``source``; ``where`` names the file and template for error messages."""
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise SourceError(f"{where}: rule {source!r} is not a valid expression ({exc.msg})") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise SourceError(f"{where}: rule {source!r} uses {type(node).__name__}, which rules may not use")
        if isinstance(node, ast.Call) and (
            not isinstance(node.func, ast.Name) or node.keywords or len(node.args) != 1
        ):
            raise SourceError(
                f"{where}: rule {source!r}: calls must be lookups of one argument, like size(s)"
            )
    return Expr(source, tree)
