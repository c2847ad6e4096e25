"""The per-run HTML report and the terminal results table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from omnieval.types import STATES

__all__ = ["results_table", "write_report"]

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(Path(__file__).parent)), autoescape=jinja2.select_autoescape(["html", "jinja"])
)


def write_report(run_dir: Path, results: dict[str, Any]) -> Path:
    """Render ``report.html`` next to the results."""
    html = _ENV.get_template("report.html.jinja").render(results=results, run_dir=str(run_dir), states=STATES)
    path = run_dir / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def results_table(results: dict[str, Any]) -> Any:
    """A rich table of per-task scores and state counts."""
    from rich.table import Table

    title = f"omnieval — {results['model']}" + (" (blind: media removed)" if results.get("blind") else "")
    table = Table(title=title)
    table.add_column("task")
    table.add_column("score", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("n", justify="right")
    for state in STATES:
        table.add_column(state, justify="right")
    for name, block in results["tasks"].items():
        ci = block.get("ci95")
        table.add_row(
            name,
            f"{block['score']:.4f}" if block.get("n_scored", 1) else "– (hidden answers)",
            f"{ci[0]:.3f}–{ci[1]:.3f}" if ci else "–",
            str(block["n"]),
            *(str(block["states"].get(s, 0)) for s in STATES),
        )
    return table
