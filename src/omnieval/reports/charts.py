"""Plotly figure specs (plain dicts, drawn by the inlined plotly.js): scores, states, capabilities."""

from __future__ import annotations

from collections import Counter
from typing import Any

__all__ = ["FONT", "dimension_charts", "state_chart", "task_score_chart"]

FONT = {
    "family": "Inter, system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
    "size": 12,
    "color": "#1f2937",
}
ACCENT = "#4f46e5"
STATE_COLORS = {
    "ok": "#10b981",
    "parse_failed": "#f59e0b",
    "truncated": "#f97316",
    "error": "#ef4444",
    "skipped": "#9ca3af",
    "judge_failed": "#a855f7",
}
PALETTE = ["#4f46e5", "#0ea5e9", "#10b981", "#f59e0b", "#ef4444", "#a855f7", "#14b8a6", "#f97316"]


def _layout(height: int, **extra: Any) -> dict[str, Any]:
    return {
        "height": height,
        "margin": {"l": 10, "r": 20, "t": 10, "b": 40},
        "font": FONT,
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "bargap": 0.35,
        **extra,
    }


def _height(n_bars: int) -> int:
    return max(180, min(4000, 60 + 26 * n_bars))


def task_score_chart(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """Horizontal bars of task scores with 95 % CI whiskers and human-baseline markers."""
    names = [t["name"] for t in tasks]
    scores = [t["score"] if t.get("scored", True) else None for t in tasks]  # hidden answers: no bar, not a 0
    plus = [(t["ci95"][1] - t["score"]) if t.get("ci95") and t.get("scored", True) else 0 for t in tasks]
    minus = [(t["score"] - t["ci95"][0]) if t.get("ci95") and t.get("scored", True) else 0 for t in tasks]
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "y": names,
            "x": scores,
            "name": "score",
            "marker": {"color": ACCENT},
            "error_x": {
                "type": "data",
                "array": plus,
                "arrayminus": minus,
                "color": "#111827",
                "thickness": 1.2,
            },
            "hovertemplate": "%{y}: %{x:.3f}<extra></extra>",
        }
    ]
    baseline = [(t["name"], t["human_baseline"]) for t in tasks if t.get("human_baseline") is not None]
    if baseline:
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "y": [b[0] for b in baseline],
                "x": [b[1] for b in baseline],
                "name": "human baseline",
                "marker": {
                    "symbol": "diamond",
                    "size": 10,
                    "color": "#f59e0b",
                    "line": {"width": 1, "color": "#78350f"},
                },
                "hovertemplate": "%{y}: human %{x:.3f}<extra></extra>",
            }
        )
    return {
        "data": data,
        "layout": _layout(
            _height(len(names)) + (30 if baseline else 0),
            xaxis={"range": [0, 1.02], "gridcolor": "#e5e7eb", "title": {"text": "score"}},
            yaxis={"autorange": "reversed", "automargin": True, "type": "category"},
            showlegend=bool(baseline),
            legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        ),
    }


def state_chart(tasks: list[dict[str, Any]], states: list[str]) -> dict[str, Any]:
    """Stacked bars of sample states per task (every sample ends in exactly one)."""
    names = [t["name"] for t in tasks]
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "name": s,
            "y": names,
            "x": [t["states"].get(s, 0) for t in tasks],
            "marker": {"color": STATE_COLORS.get(s, PALETTE[i % len(PALETTE)])},
            "hovertemplate": f"%{{y}}: %{{x}} {s}<extra></extra>",
        }
        for i, s in enumerate(states)
        if any(t["states"].get(s, 0) for t in tasks)
    ]
    return {
        "data": data,
        "layout": _layout(
            _height(len(names)) + 30,
            barmode="stack",
            xaxis={"gridcolor": "#e5e7eb", "title": {"text": "samples"}},
            yaxis={"autorange": "reversed", "automargin": True, "type": "category"},
            legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        ),
    }


def _short(label: str, width: int = 24) -> str:
    """Long labels keep their start and end (``correctness_results@task2`` and ``@task5`` differ at the
    end)."""
    if len(label) <= width:
        return label
    tail = (width - 1) // 2
    return label[: width - 1 - tail] + "…" + label[-tail:]


def _axis_labels(values: list[str]) -> list[str]:
    """Shortened labels, each distinct: a categorical axis would draw two equal labels as one bar."""
    short = [_short(v) for v in values]
    counts = Counter(short)
    return [s if counts[s] == 1 else v for s, v in zip(short, values, strict=True)]


def dimension_charts(dimension: dict[str, Any]) -> list[dict[str, Any]]:
    """A bar chart of one dimension's groups, plus a radar when the groups make a readable polygon."""
    groups = dimension["groups"]
    labels = _axis_labels([g["value"] for g in groups])
    unit = {"task": "tasks", "judge": "verdicts"}.get(dimension["level"], "samples")
    # scores are in [0, 1]; judge verdicts keep the judge's own scale (POLLUX criteria run 0-1 to 0-4)
    fixed = dimension["level"] != "judge"
    top = 1.0 if fixed else max(1.0, *(g["score"] for g in groups))
    bar = {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                "y": labels,
                "x": [g["score"] for g in groups],
                "customdata": [[g["n"], g["value"]] for g in groups],
                "marker": {"color": "#0ea5e9"},
                "hovertemplate": "%{customdata[1]}: %{x:.3f} (n=%{customdata[0]} "
                + unit
                + ")<extra></extra>",
            }
        ],
        "layout": _layout(
            _height(len(groups)),
            xaxis={"range": [0, top * 1.02], "gridcolor": "#e5e7eb"},
            yaxis={"autorange": "reversed", "automargin": True, "type": "category"},
        ),
    }
    if not 3 <= len(groups) <= 16:
        return [bar]
    radar = {
        "data": [
            {
                "type": "scatterpolar",
                "r": [*(g["score"] for g in groups), groups[0]["score"]],
                "theta": [*labels, labels[0]],
                "fill": "toself",
                "fillcolor": "rgba(79,70,229,0.18)",
                "line": {"color": ACCENT},
                "name": dimension["name"],
                "hovertemplate": "%{theta}: %{r:.3f}<extra></extra>",
            }
        ],
        "layout": {
            **_layout(280, margin={"l": 70, "r": 70, "t": 28, "b": 28}),
            "polar": {
                "radialaxis": {
                    "range": [0, top],
                    "gridcolor": "#e5e7eb",
                    "tickvals": [top / 2, top],
                    "tickfont": {"size": 9, "color": "#9ca3af"},
                },
                "angularaxis": {"gridcolor": "#e5e7eb", "tickfont": {"size": 11}, "type": "category"},
                "bgcolor": "rgba(0,0,0,0)",
            },
            "showlegend": False,
        },
    }
    return [bar, radar]
