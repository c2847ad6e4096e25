"""Load the vendored official scorers' functions without running their module-level code.

The vendored files import model and progress-bar packages at the top (torch, tqdm, loguru); the
functions scored here use none of them, so only the named definitions (or statements) are compiled
and run, unchanged, from the file's own text.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

VENDOR = Path(__file__).parent / "vendor"


def functions(
    relative: str, *names: str, using: dict[str, Any] | None = None
) -> dict[str, Callable[..., Any]]:
    """The named top-level functions/classes of a vendored file, decorators dropped; ``using``: the
    module-level names they need (what the file imports)."""
    tree = ast.parse((VENDOR / relative).read_text(encoding="utf-8"))
    picked = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name in names:
            node.decorator_list = []
            picked.append(node)
    found = {node.name for node in picked}  # type: ignore[attr-defined]
    assert found == set(names), f"{relative}: missing {set(names) - found}"
    namespace: dict[str, Any] = {"re": re, **(using or {})}
    exec(compile(ast.Module(body=picked, type_ignores=[]), str(VENDOR / relative), "exec"), namespace)
    return {name: namespace[name] for name in names}


def ocrbench_scoring_loop() -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    """OCRBench example.py's per-question scoring loop (the ``for`` over ``data`` that sets ``result``)."""
    path = VENDOR / "multimodalocr" / "ocrbench_example.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    main = next(n for n in tree.body if isinstance(n, ast.If))
    loop = next(
        n
        for n in main.body
        if isinstance(n, ast.For) and "result" in ast.unparse(n) and "dataset_name" in ast.unparse(n)
    )
    code = compile(ast.Module(body=[loop], type_ignores=[]), str(path), "exec")

    def run(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
        exec(code, {"data": data})
        return data

    return run
