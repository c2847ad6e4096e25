"""MARKER item Simplicity as a report page: hardest and easiest items side by side, every model's answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omnieval.benchmarks.marker.simplicity import FORMULA, ItemStat
from omnieval.reports.analysis_page import write_analysis

__all__ = ["write_simplicity_page"]


def _row(stat: ItemStat) -> dict[str, Any]:
    return {
        "item": stat.item,
        "simplicity": stat.simplicity,
        "weighted": stat.weighted,
        "chance_corrected": stat.chance_corrected,
        "answers": {m: a[:160] for m, a in stat.answers.items()},
    }


def write_simplicity_page(stats: list[ItemStat], output: Path, *, top: int) -> Path:
    """``simplicity.html`` plus hardest/easiest/all-items tables under ``output``."""
    hardest, easiest = [_row(s) for s in stats[:top]], [_row(s) for s in stats[::-1][:top]]
    everything = [
        {
            **_row(s),
            "answers": None,
            "n_options": s.n_options,
            **{f"value[{m}]": v for m, v in s.per_model.items()},
        }
        for s in stats
    ]
    chart = {
        "data": [
            {
                "type": "histogram",
                "x": [s.weighted for s in stats],
                "nbinsx": 20,
                "marker": {"color": "#4f46e5"},
            }
        ],
        "layout": {
            "height": 280,
            "margin": {"l": 40, "r": 20, "t": 30, "b": 40},
            "paper_bgcolor": "rgba(0,0,0,0)",
            "plot_bgcolor": "rgba(0,0,0,0)",
            "title": {"text": "weighted simplicity of all items", "font": {"size": 13}},
            "xaxis": {"range": [0, 1]},
            "yaxis": {"gridcolor": "#e5e7eb"},
        },
    }
    sections: list[dict[str, Any]] = [
        {
            "title": "Item simplicity",
            "text": f"Reconstructed formula (the article's is lost): {FORMULA}.",
            "charts": {"simplicity": chart},
            "tables": [
                {"title": f"Hardest {len(hardest)}", "rows": hardest},
                {"title": f"Easiest {len(easiest)}", "rows": easiest},
            ],
            "side_by_side": True,
        },
        {"title": "All items", "tables": [{"title": "Items, hardest first", "rows": everything}]},
    ]
    summary = {"formula": FORMULA, "n_items": len(stats), "hardest": hardest, "easiest": easiest}
    return write_analysis(
        output, name="simplicity", title="MARKER item simplicity", sections=sections, summary=summary
    )
