"""A generic analysis page: titled sections of charts and tables (tables also exported as MD/CSV/JSON)."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

from omnieval.reports.embed import script_json
from omnieval.reports.html import render_page
from omnieval.reports.tables import write_table

__all__ = ["Section", "write_analysis"]

Section = dict[str, Any]
"""``{"title", "text", "charts": {id: figure}, "tables": [{"title", "name", "rows"}], "side_by_side":
bool}``."""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "table"


def write_analysis(
    output: Path, *, name: str, title: str, sections: list[Section], summary: dict[str, Any]
) -> Path:
    """``NAME.html``, ``NAME.json`` (the summary) and ``tables/`` under ``output``."""
    output.mkdir(parents=True, exist_ok=True)
    charts: dict[str, Any] = {}
    for section in sections:
        for table in section.get("tables", []):
            table["name"] = table.get("name") or _slug(f"{name}_{table['title']}")
            write_table(output / "tables", table["name"], table["rows"], title=table["title"])
            table["columns"] = list(dict.fromkeys(k for row in table["rows"] for k in row))
        charts.update(section.get("charts", {}))
    (output / f"{name}.json").write_text(
        json.dumps(summary, ensure_ascii=False, indent=1, default=str), encoding="utf-8"
    )
    html = render_page(
        "analysis.html.jinja",
        title=title,
        sections=sections,
        data_json=script_json({"charts": charts}),
        generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )
    path = output / f"{name}.html"
    path.write_text(html, encoding="utf-8")
    return path
