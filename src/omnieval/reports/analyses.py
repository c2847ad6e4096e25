"""The published analyses as commands over stored runs (tables + plots, no model calls).

* prompt sensitivity (MERA Multi, Appendix E.2) — one OLS per task over every run given;
* bootstrap stability vs samples per task (MEGA-Bench §4.3);
* subset stability over random draws (ART §8.2: 100 draws).

A run's model and engine come from its model spec ``ENGINE/MODEL`` (``vllm/Qwen…`` → engine ``vllm``,
model ``Qwen…``), so the same model served by two engines is one model level and two engine levels.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from omnieval.aggregate.repeats import fold_all_repeats
from omnieval.analysis.sensitivity import prompt_sensitivity
from omnieval.analysis.stability import bootstrap_by_task_size, subset_draws
from omnieval.errors import ConfigError
from omnieval.reports.charts import FONT, PALETTE
from omnieval.reports.loading import RunData, load_run

__all__ = ["model_and_engine", "prompt_sensitivity_analysis", "stability_analysis", "subset_analysis"]


def model_and_engine(run: RunData) -> tuple[str, str]:
    spec = str(run.typed.model or run.typed_manifest.config.get("model") or run.label)
    engine, _, model = spec.partition("/")
    return (model, engine) if model else (spec, "unknown")


def _value(record: dict[str, Any], metric: str | None) -> float | None:
    if metric is None:
        return float(record.get("score") or 0.0)
    value = (record.get("metrics") or {}).get(metric)
    return None if value is None else float(value)


def _layout(height: int, **extra: Any) -> dict[str, Any]:
    return {
        "height": height,
        "margin": {"l": 10, "r": 20, "t": 30, "b": 40},
        "font": FONT,
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        **extra,
    }


def _dotted(meta: dict[str, Any], path: str) -> Any:
    value: Any = meta
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def prompt_sensitivity_analysis(
    run_dirs: list[Path],
    *,
    metric: str | None = None,
    tasks: list[str] | None = None,
    factors: list[str] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Sections and summary: one OLS ``metric ~ C(prompt) + C(model) + C(engine) [+ C(factor)...]`` per task;
    extra factors (MERA's frames, domain) are sample metadata keys, dotted for nested ones."""
    names = {f: "f_" + "".join(c if c.isalnum() else "_" for c in f) for f in factors or []}
    cells: dict[tuple[str, int, str, str], tuple[dict[str, Any], list[float]]] = {}
    for index, run in enumerate(load_run(d) for d in run_dirs):
        model, engine = model_and_engine(run)
        for record in run.records:
            if (
                record.get("variant") is None
                or not record.get("scored", True)
                or (tasks and record["task"] not in tasks)
            ):
                continue
            value = _value(record, metric)
            if value is not None:
                meta = record.get("metadata") or {}
                extra = {name: str(_dotted(meta, f)) for f, name in names.items()}
                row = {"prompt": str(record["variant"]), "model": model, "engine": engine, **extra}
                key = (
                    str(record["task"]),
                    index,
                    str(record["sample_id"]),
                    row["prompt"],
                )  # repeats: one row
                cells.setdefault(key, (row, []))[1].append(value)
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (task, *_), (row, values) in cells.items():  # the mean over a sample's repeats
        rows[task].append({"metric": math.fsum(values) / len(values), **row})
    fits, skipped, table = {}, {}, []
    for task, task_rows in rows.items():
        try:
            fits[task] = prompt_sensitivity(task_rows, extra_factors=list(names.values()))
        except ValueError as exc:
            skipped[task] = str(exc)
            continue
        for row in fits[task]["prompts"]:
            table.append(
                {"task": task, "baseline": fits[task]["baseline_prompt"], **row, "n_obs": fits[task]["n_obs"]}
            )
    if not fits:
        raise ConfigError(
            "no task has samples under two or more prompt variants in these runs "
            f"({skipped or 'no variants recorded'})"
        )
    charts = {}
    for i, (task, fit) in enumerate(fits.items()):
        prompts = fit["prompts"]
        charts[f"sens{i}"] = {
            "data": [
                {
                    "type": "bar",
                    "x": [p["prompt"] for p in prompts],
                    "y": [p["coef"] for p in prompts],
                    "error_y": {
                        "type": "data",
                        "array": [1.96 * p["std_err"] for p in prompts],
                        "color": "#374151",
                    },
                    "marker": {"color": ["#ef4444" if p["significant"] else "#9ca3af" for p in prompts]},
                    "hovertemplate": "%{x}: β=%{y:.3f}<extra></extra>",
                }
            ],
            "layout": _layout(
                300,
                title={"text": f"{task}: β vs prompt {fit['baseline_prompt']}", "font": {"size": 13}},
                xaxis={"type": "category"},
                yaxis={
                    "zeroline": True,
                    "zerolinecolor": "#111827",
                    "gridcolor": "#e5e7eb",
                    "automargin": True,
                },
            ),
        }
    summary_rows = [
        {
            "task": t,
            "formula": f["formula"],
            "baseline": f["baseline_prompt"],
            "n_obs": f["n_obs"],
            "significant_prompts": sum(p["significant"] for p in f["prompts"]),
            "prompt_sensitive": f["prompt_sensitive"],
            "dropped_factors": ", ".join(f["dropped_factors"]),
            "warning": f["warning"],
        }
        for t, f in fits.items()
    ]
    sections = [
        {
            "title": "Prompt sensitivity (OLS, two-sided t-test per prompt, α = 0.05)",
            "text": "metric ~ C(prompt) + C(model) + C(engine), fitted per task with statsmodels; each "
            "prompt's coefficient is "
            "its effect against the baseline prompt with model and engine held fixed (red: significant; "
            "whiskers: ±1.96 SE). "
            "A factor with one level in these runs is left out and listed.",
            "charts": charts,
            "tables": [{"title": "Per task", "rows": summary_rows}, {"title": "Per prompt", "rows": table}],
        }
    ]
    return sections, {"metric": metric or "score", "fits": fits, "skipped": skipped}


def _scored_by_task(run: RunData) -> dict[str, list[float]]:
    """Per task, each scored sample's score; a sample's repeats are one item (their mean), so resampling
    items resamples samples with their repeats (clustered), never the repeats one by one."""
    out: dict[str, list[float]] = defaultdict(list)
    for record in fold_all_repeats(run.records):
        if record.get("scored", True):
            out[str(record["task"])].append(float(record.get("score") or 0.0))
    return out


def stability_analysis(
    run_dirs: list[Path], *, sizes: list[int], n_resamples: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """MEGA-Bench's bootstrap: spread of the macro score vs items per task, one curve per run."""
    curves: dict[str, list[dict[str, Any]]] = {}
    table: list[dict[str, Any]] = []
    for run in (load_run(d) for d in run_dirs):
        curve = bootstrap_by_task_size(_scored_by_task(run), sizes=sizes, n_resamples=n_resamples)
        curves[run.label] = curve
        table.extend(
            {
                "run": run.label,
                **{k: v for k, v in row.items() if k != "ci95"},
                "ci95_low": row["ci95"][0],
                "ci95_high": row["ci95"][1],
            }
            for row in curve
        )
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": label,
            "x": [r["n_per_task"] for r in curve],
            "y": [r["macro_std"] for r in curve],
            "line": {"color": PALETTE[i % len(PALETTE)]},
        }
        for i, (label, curve) in enumerate(curves.items())
    ]
    chart = {
        "data": data,
        "layout": _layout(
            340,
            xaxis={
                "title": {"text": "samples per task (resampled with replacement)"},
                "gridcolor": "#e5e7eb",
            },
            yaxis={"title": {"text": "std of the macro score"}, "gridcolor": "#e5e7eb", "automargin": True},
            legend={"orientation": "h", "y": 1.08},
        ),
    }
    sections = [
        {
            "title": "Bootstrap stability vs samples per task",
            "text": "For each n, every task's items are resampled n at a time with replacement "
            f"({n_resamples:,} repetitions), "
            "task means are averaged into the macro score, and the spread of that score is shown (MEGA-Bench "
            "§4.3).",
            "charts": {"stability": chart},
            "tables": [{"title": "Stability", "rows": table}],
        }
    ]
    return sections, {"n_resamples": n_resamples, "curves": curves}


def subset_analysis(
    run_dirs: list[Path], *, size: int, draws: int, seed: int = 0
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """ART's robustness study: the score over ``draws`` random subsets of ``size`` scored samples per run."""
    table = []
    for run in (load_run(d) for d in run_dirs):
        values = [v for vs in _scored_by_task(run).values() for v in vs]
        table.append({"run": run.label, **subset_draws(values, size=size, draws=draws, seed=seed)})
    chart = {
        "data": [
            {
                "type": "bar",
                "x": [r["run"] for r in table],
                "y": [r["mean"] for r in table],
                "error_y": {"type": "data", "array": [r["std"] for r in table], "color": "#374151"},
                "marker": {"color": "#4f46e5"},
                "name": "mean ± std",
            },
            {
                "type": "scatter",
                "mode": "markers",
                "x": [r["run"] for r in table],
                "y": [r["full_mean"] for r in table],
                "marker": {"symbol": "diamond", "size": 10, "color": "#f59e0b"},
                "name": "full set",
            },
        ],
        "layout": _layout(
            320,
            xaxis={"type": "category"},
            yaxis={"range": [0, 1], "gridcolor": "#e5e7eb", "automargin": True},
            legend={"orientation": "h", "y": 1.1},
        ),
    }
    sections = [
        {
            "title": f"Subset stability: {draws} random draws of {size} samples",
            "text": "Each draw takes samples without replacement from all scored samples of a run (ART §8.2 "
            "does not say whether "
            "draws are stratified per task; these are not). Mean ± std, min and max of the drawn scores vs "
            "the full-set score.",
            "charts": {"subsets": chart},
            "tables": [{"title": "Subset draws", "rows": table}],
        }
    ]
    return sections, {"size": size, "draws": draws, "runs": table}
