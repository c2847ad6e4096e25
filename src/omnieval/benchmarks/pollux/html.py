"""A self-contained HTML page for a POLLUX evaluation: every table as a heat map (cell shade by value,
"—" for cells not evaluated) and each judge's confusion matrices per macrogroup. No JavaScript."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from omnieval.benchmarks.pollux.tables import MISSING, Table

__all__ = ["html_report"]

STYLE = (
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}"
    "td.k{text-align:left}"
)


def _shade(value: float | None, low: float, high: float) -> str:
    if value is None:
        return ""
    t = 0.0 if high <= low else (value - low) / (high - low)
    return f' style="background:rgba(40,110,220,{0.1 + 0.6 * t:.2f})"'


def _heat(table: Table) -> str:
    values = [v for v in table.cells.values() if v is not None]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    rows = []
    for r in table.rows:
        cells = "".join(
            f"<td{_shade(table.cells.get((r, c)), low, high)}>{html.escape(table.cell(r, c))}</td>"
            for c in table.columns
        )
        rows.append(f"<tr><td class=k>{html.escape(r)}</td>{cells}</tr>")
    return (
        f"<h3>{html.escape(table.title)}</h3><table><tr><th>{html.escape(table.row_header)}</th>{head}</tr>"
        + "".join(rows)
        + "</table>"
    )


def _confusion(name: str, block: dict[str, Any]) -> str:
    labels, matrix = block["labels"], block["matrix"]
    top = max((max(row) for row in matrix), default=0) or 1
    head = "".join(f"<th>judge {label}</th>" for label in labels)
    rows = "".join(
        f"<tr><th>expert {label}</th>" + "".join(f"<td{_shade(v, 0, top)}>{v}</td>" for v in row) + "</tr>"
        for label, row in zip(labels, matrix, strict=True)
    )
    outside = f" ({block['n_outside_labels']} outside the labels)" if block["n_outside_labels"] else ""
    return f"<h4>{html.escape(name)}{outside}</h4><table><tr><th></th>{head}</tr>{rows}</table>"


def html_report(result: dict[str, Any], tables: Sequence[Table]) -> str:
    parts = [
        f"<!doctype html><meta charset=utf-8><title>POLLUX evaluation</title><style>{STYLE}</style>",
        "<h1>POLLUX evaluation</h1>",
        f"<p>{result['n_samples']} aggregated triples; cells not evaluated show "
        f"{MISSING}.</p><h2>Cleaning</h2><table><tr><th>step</th><th>estimates</th><th>triples</th></tr>",
    ]
    parts += [
        f"<tr><td class=k>{s['step']}</td><td>{s['estimates']}</td><td>{s['triples']}</td></tr>"
        for s in result["cleaning"]
    ]
    parts.append("</table><h2>Tables</h2>")
    parts += [_heat(t) for t in tables]
    for judge, data in result["judges"].items():
        parts.append(f"<h2>Confusion matrices: {html.escape(judge)}</h2>")
        parts += [_confusion(group, block) for group, block in data["report"]["confusion"].items()]
    return "\n".join(parts)
