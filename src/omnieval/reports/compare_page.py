"""Writes a comparison: ``compare.json`` (the fixed interface), ``compare.html`` and every table."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from omnieval.reports.charts import FONT, PALETTE
from omnieval.reports.embed import script_json
from omnieval.reports.html import render_page
from omnieval.reports.tables import write_table

__all__ = ["leaderboard_rows", "pairwise_rows", "write_comparison"]


def leaderboard_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per run: its score on every task and the unweighted mean over the tasks it ran."""
    rows = []
    for label in doc["runs"]:
        scores = {t: b["scores"].get(label) for t, b in doc["tasks"].items()}
        present = [s for s in scores.values() if s is not None]
        rows.append({"run": label, "mean": sum(present) / len(present) if present else None, **scores})
    rows.sort(key=lambda r: -(r["mean"] or 0.0))
    human = doc.get("human_baseline") or {}
    if human:
        rows.append({"run": "human baseline", "mean": None, **{t: human.get(t) for t in doc["tasks"]}})
    return rows


def pairwise_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    holm = {(h["a"], h["b"], h["task"]): h["p_holm"] for h in doc["multiple_comparisons"]["adjusted"]}
    flips = doc.get("flips", {})
    rows = []
    for task, block in doc["tasks"].items():
        for e in block["pairwise"]:
            p_holm = holm.get((e["a"], e["b"], task))
            rows.append(
                {
                    "task": task,
                    "a": e["a"],
                    "b": e["b"],
                    "diff": e["diff"],
                    "ci95_low": e["ci95"][0] if e["ci95"] else None,
                    "ci95_high": e["ci95"][1] if e["ci95"] else None,
                    "p_value": e["p_value"],
                    "p_holm": p_holm,
                    "significant": p_holm is not None and p_holm < 0.05,
                    "test": e["test"],
                    "n_paired": e["n_paired"],
                    "n_flipped": flips.get(f"{e['a']} → {e['b']}", {}).get("n_flipped", {}).get(task),
                    "n_state_changed": flips.get(f"{e['a']} → {e['b']}", {})
                    .get("n_state_changed", {})
                    .get(task),
                }
            )
    return rows


def _layout(height: int, **extra: Any) -> dict[str, Any]:
    return {
        "height": height,
        "margin": {"l": 10, "r": 20, "t": 10, "b": 40},
        "font": FONT,
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        **extra,
    }


def _charts(doc: dict[str, Any], pairs: list[dict[str, Any]]) -> dict[str, Any]:
    tasks = list(doc["tasks"])
    bars = [
        {
            "type": "bar",
            "name": label,
            "x": tasks,
            "y": [doc["tasks"][t]["scores"].get(label) for t in tasks],
            "marker": {"color": PALETTE[i % len(PALETTE)]},
            "hovertemplate": label + " · %{x}: %{y:.3f}<extra></extra>",
        }
        for i, label in enumerate(doc["runs"])
    ]
    charts: dict[str, Any] = {
        "scores": {
            "data": bars,
            "layout": _layout(
                360,
                barmode="group",
                yaxis={
                    "range": [0, 1.02],
                    "gridcolor": "#e5e7eb",
                    "title": {"text": "score"},
                    "automargin": True,
                },
                xaxis={"automargin": True, "type": "category"},
                legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
                bargap=0.25,
            ),
        }
    }
    keys = list(dict.fromkeys((p["a"], p["b"]) for p in pairs))
    for i, (a, b) in enumerate(keys):
        rows = [p for p in pairs if (p["a"], p["b"]) == (a, b)]
        colors = [
            "#10b981"
            if r["significant"] and (r["diff"] or 0) > 0
            else "#ef4444"
            if r["significant"]
            else "#6b7280"
            for r in rows
        ]
        charts[f"forest{i}"] = {
            "data": [
                {
                    "type": "scatter",
                    "mode": "markers",
                    "y": [r["task"] for r in rows],
                    "x": [r["diff"] for r in rows],
                    "marker": {"size": 10, "color": colors},
                    "error_x": {
                        "type": "data",
                        "symmetric": False,
                        "array": [
                            (r["ci95_high"] - r["diff"]) if r["ci95_high"] is not None else 0 for r in rows
                        ],
                        "arrayminus": [
                            (r["diff"] - r["ci95_low"]) if r["ci95_low"] is not None else 0 for r in rows
                        ],
                        "color": "#9ca3af",
                    },
                    "hovertemplate": "%{y}: Δ=%{x:.3f}<extra></extra>",
                }
            ],
            "layout": _layout(
                max(180, 60 + 28 * len(rows)),
                yaxis={"autorange": "reversed", "automargin": True, "type": "category"},
                xaxis={
                    "zeroline": True,
                    "zerolinecolor": "#111827",
                    "gridcolor": "#e5e7eb",
                    "title": {"text": f"score({b}) − score({a})"},
                },
                showlegend=False,
            ),
        }
    return charts


def write_comparison(doc: dict[str, Any], output: Path) -> dict[str, Path]:
    """``compare.json``, ``compare.html`` and ``tables/`` under ``output``."""
    output.mkdir(parents=True, exist_ok=True)
    json_path, html_path = output / "compare.json", output / "compare.html"
    json_path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    board, pairs = leaderboard_rows(doc), pairwise_rows(doc)
    write_table(output / "tables", "leaderboard", board, title="Leaderboard")
    write_table(
        output / "tables", "pairwise", pairs, title="Paired tests (Holm-adjusted across tasks per pair)"
    )
    flips = [
        {
            "pair": key,
            **{k: v for k, v in f.items() if k not in ("a", "b")},
            "a_score": f["a"]["score"],
            "b_score": f["b"]["score"],
            "a_state": f["a"]["state"],
            "b_state": f["b"]["state"],
        }
        for key, block in doc["flips"].items()
        for f in block["samples"]
    ]
    write_table(output / "tables", "flips", flips, title="Flipped samples")
    charts = _charts(doc, pairs)
    sources = {  # spoken answers play from the page's folder
        side["audio"]: os.path.relpath(side["audio"], output).replace(os.sep, "/")
        for block in doc["flips"].values()
        for f in block["samples"]
        for side in (f["a"], f["b"])
        if side.get("audio")
    }
    html = render_page(
        "compare.html.jinja",
        sources=sources,
        doc=doc,
        board=board,
        pairs=pairs,
        tasks=list(doc["tasks"]),
        pair_keys=list(dict.fromkeys((p["a"], p["b"]) for p in pairs)),
        data_json=script_json({"charts": charts}),
        generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )
    html_path.write_text(html, encoding="utf-8")
    return {"json": json_path, "html": html_path}
