"""Every table a report or analysis shows, exported as Markdown, CSV and JSON side by side."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["markdown_table", "write_table"]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):  # four decimals, but a tiny p-value is not written as 0.0000
        return f"{value:.3g}" if 0 < abs(value) < 5e-5 else f"{value:.4f}"
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    return list(columns)


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""
    columns = _columns(rows)
    if not columns:
        return "(empty)\n"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append(
            "| "
            + " | ".join(_cell(row.get(c)).replace("|", "\\|").replace("\n", " ") for c in columns)
            + " |"
        )
    return "\n".join(lines) + "\n"


def write_table(
    folder: Path, name: str, rows: Sequence[dict[str, Any]], *, title: str | None = None
) -> list[Path]:
    """``NAME.md``, ``NAME.csv`` and ``NAME.json`` of one table."""
    folder.mkdir(parents=True, exist_ok=True)
    columns = _columns(rows)
    md = (f"## {title}\n\n" if title else "") + markdown_table(rows)
    (folder / f"{name}.md").write_text(md, encoding="utf-8")
    with (folder / f"{name}.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        writer.writerows([_cell(row.get(c)) for c in columns] for row in rows)
    (folder / f"{name}.json").write_text(
        json.dumps(list(rows), ensure_ascii=False, indent=1, default=str), encoding="utf-8"
    )
    return [folder / f"{name}.{ext}" for ext in ("md", "csv", "json")]
