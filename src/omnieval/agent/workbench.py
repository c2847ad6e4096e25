"""``workbench``: the in-process tool environment of the agent demo suite.

Tools over the sample's picture (``crop``, ``zoom``, ``rotate`` return images; ``read_region`` returns
the text printed inside a box, read from the generator's own layout, so it is exact and deterministic),
a ``calculator`` (arithmetic only, parsed, never ``eval``), a ``table`` (``set_cell``/``get_table``) and
a small file system (``write_file``/``read_file``/``list_files``). The state holds the table, the files,
the calculator's history and the submitted answer; :meth:`Workbench.grade` compares it with the
sample's ``goal`` (``answer`` and/or ``table``).
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from omnieval.agent.environment import Environment, register_environment
from omnieval.agent.tools import Tool, ToolResult, tool
from omnieval.types import Sample

__all__ = ["Workbench", "calculate"]

_OPS: dict[type, Any] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def calculate(expression: str) -> float:
    """An arithmetic expression's value (+ - * / and brackets); anything else is a ValueError."""

    def value(node: ast.AST) -> float:
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int | float)
            and not isinstance(node.value, bool)
        ):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](value(node.left), value(node.right))  # type: ignore[no-any-return]
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](value(node.operand))  # type: ignore[no-any-return]
        raise ValueError(f"not arithmetic: {ast.unparse(node)!r}")

    if len(expression) > 200:
        raise ValueError("expression longer than 200 characters")
    return value(ast.parse(expression.replace("×", "*").replace("÷", "/"), mode="eval").body)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def _norm(value: Any) -> str:
    return " ".join(str(value).strip().casefold().replace(",", ".").split())


@register_environment("workbench")
class Workbench(Environment):
    """Image tools, calculator, table and files over one sample (``tools``: which ones to offer)."""

    def __init__(
        self, sample: Sample, *, tools: tuple[str, ...] | list[str] = ("image",), **options: Any
    ) -> None:
        super().__init__(sample, **options)
        self.offered = tuple(tools)
        self.state.update({"table": {}, "files": {}, "calculations": [], "views": 0})
        self.regions: list[tuple[int, int, int, int, str]] = [
            (int(r[0]), int(r[1]), int(r[2]), int(r[3]), str(r[4]))
            for r in sample.metadata.get("regions", [])
        ]
        self._image: Any = None

    def picture(self) -> Any:
        if self._image is None:
            from PIL import Image

            media = next((m for m in self.sample.media if m.kind == "image"), None)
            if media is None or media.path is None:
                raise ValueError("this sample has no picture on disk")
            with Image.open(media.path) as img:
                self._image = img.convert("RGB")
        return self._image

    def _box(self, x0: int, y0: int, x1: int, y1: int) -> tuple[int, int, int, int]:
        width, height = self.picture().size
        if not (0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height):
            raise ValueError(f"box ({x0}, {y0}, {x1}, {y1}) is not inside the {width}×{height} picture")
        self.state["views"] += 1
        return x0, y0, x1, y1

    def tools(self) -> list[Tool]:
        out: list[Tool] = []
        if "image" in self.offered:
            out += [
                tool(self.crop),
                tool(self.zoom),
                tool(self.rotate),
                tool(self.read_region),
                tool(self.image_size),
            ]
        if "calculator" in self.offered:
            out.append(tool(self.calculator))
        if "table" in self.offered:
            out += [tool(self.set_cell), tool(self.get_table)]
        if "files" in self.offered:
            out += [tool(self.write_file), tool(self.read_file), tool(self.list_files)]
        return out

    def image_size(self) -> str:
        """The picture's width and height in pixels."""
        width, height = self.picture().size
        return f"{width}x{height}"

    def crop(self, x0: int, y0: int, x1: int, y1: int) -> ToolResult:
        """Crop the picture to the box (pixels, x0 < x1, y0 < y1) and show it."""
        box = self._box(x0, y0, x1, y1)
        return ToolResult(f"crop {box}", (self.picture().crop(box),))

    def zoom(self, x0: int, y0: int, x1: int, y1: int, factor: int = 3) -> ToolResult:
        """Crop the box and enlarge it by an integer factor (2-6) to read small print."""
        if not 2 <= factor <= 6:
            raise ValueError("factor must be between 2 and 6")
        box = self._box(x0, y0, x1, y1)
        part = self.picture().crop(box)
        return ToolResult(
            f"zoom ×{factor} of {box}", (part.resize((part.width * factor, part.height * factor)),)
        )

    def rotate(self, degrees: int) -> ToolResult:
        """Rotate the whole picture by 90, 180 or 270 degrees counter-clockwise and show it."""
        if degrees not in (90, 180, 270):
            raise ValueError("degrees must be 90, 180 or 270")
        self.state["views"] += 1
        return ToolResult(f"rotated {degrees}°", (self.picture().rotate(degrees, expand=True),))

    def read_region(self, x0: int, y0: int, x1: int, y1: int) -> str:
        """The text printed entirely inside the box, line by line (exact reading of the picture)."""
        self._box(x0, y0, x1, y1)
        found = [t for a, b, c, d, t in self.regions if x0 <= a and y0 <= b and c <= x1 and d <= y1]
        return "\n".join(found) if found else "(no text inside this box)"

    def calculator(self, expression: str) -> str:
        """Evaluate an arithmetic expression (+ - * / and brackets)."""
        result = _number(calculate(expression))
        self.state["calculations"].append([expression, result])
        return result

    def set_cell(self, row: str, column: str, value: str) -> str:
        """Write a value into the table cell (row, column)."""
        self.state["table"].setdefault(str(row), {})[str(column)] = str(value)
        return "ok"

    def get_table(self) -> str:
        """The table as written so far."""
        return repr(self.state["table"])

    def write_file(self, path: str, text: str) -> str:
        """Write a text file (at most 20 files of 10,000 characters)."""
        files = self.state["files"]
        if len(text) > 10_000 or (path not in files and len(files) >= 20):
            raise ValueError("the file system holds at most 20 files of 10,000 characters")
        files[path] = text
        return "ok"

    def read_file(self, path: str) -> str:
        """Read a text file."""
        if path not in self.state["files"]:
            raise FileNotFoundError(path)
        return str(self.state["files"][path])

    def list_files(self) -> str:
        """The files' names."""
        return "\n".join(sorted(self.state["files"])) or "(no files)"

    @classmethod
    def grade(cls, final_state: dict[str, Any], metadata: dict[str, Any]) -> float:
        """1 when the submitted answer equals the goal's answer (numbers compared as numbers) and every
        cell of the goal's table holds its value."""
        goal = metadata.get("goal", {})
        if "answer" in goal and not _same(final_state.get("answer"), goal["answer"]):
            return 0.0
        table = final_state.get("table") or {}
        for row, cells in (goal.get("table") or {}).items():
            for column, value in cells.items():
                if not _same(table.get(row, {}).get(column), value):
                    return 0.0
        return 1.0


def _same(got: Any, want: Any) -> bool:
    if got is None:
        return False
    try:
        return abs(float(_norm(got)) - float(_norm(want))) < 1e-6
    except ValueError:
        return _norm(got) == _norm(want)
