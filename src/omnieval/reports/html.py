"""The per-run HTML report (self-contained, plotly inlined) and the terminal results table.

``report.html`` holds the summary, charts and task tables; the sample viewer reads ``report_samples/``
lazily (see :mod:`omnieval.reports.sidecar`). ``report_tables/`` holds every table as Markdown, CSV and
JSON. Everything is rebuilt from the run directory's stored records, so ``omnieval report RUN`` can
re-render a report at any time.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jinja2

from omnieval.reports.charts import dimension_charts, state_chart, task_score_chart
from omnieval.reports.embed import html_text, plotly_js, script_json
from omnieval.reports.loading import RunData, load_run, state_names
from omnieval.reports.sidecar import write_sidecar
from omnieval.reports.tables import write_table
from omnieval.reports.taxonomy import judge_dimensions, sample_dimensions, task_dimensions
from omnieval.reports.views import PromptSource
from omnieval.types import STATES
from omnieval.types.files import ResultsFile, TaskResults, results_model

__all__ = ["ASSETS", "human_baseline", "page_assets", "render_page", "results_table", "write_report"]

ASSETS = Path(__file__).parent
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(ASSETS)),
    autoescape=jinja2.select_autoescape(["html", "jinja"]),
    finalize=html_text,
)


def page_assets() -> dict[str, str]:
    """The inline CSS, plotly.js and shared page script every omnieval page embeds."""
    return {
        "css": (ASSETS / "report.css").read_text(encoding="utf-8"),
        "plotly": plotly_js(),
        "common_js": (ASSETS / "report_common.js").read_text(encoding="utf-8"),
    }


def render_page(template: str, **context: Any) -> str:
    """Render one of the package's page templates with the shared assets."""
    return _ENV.get_template(template).render(**page_assets(), **context)


def human_baseline(meta: dict[str, Any]) -> float | None:
    for key, value in meta.items():
        if key == "human_baseline" and isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, dict):
            found = human_baseline(value)
            if found is not None:
                return found
    return None


def _task_rows(results: ResultsFile) -> list[dict[str, Any]]:
    rows = []
    for name, block in results.tasks.items():
        rows.append(
            {
                "name": name,
                "score": float(block.score or 0.0),
                "ci95": list(block.ci95) if block.ci95 is not None else None,
                "n": block.n,
                "n_scored": _n_scored(block, default=block.n),
                "scored": block.scored,
                "states": block.states,
                "metrics": block.metrics,
                "score_metric": block.score_metric,
                "version": block.extra("version"),
                "human_baseline": human_baseline(block.extra("metadata") or {}),
                "prediction_only": block.extra("prediction_only", 0),
                "parse_fallbacks": block.extra("parse_fallbacks", 0),
                "example_reasons": block.extra("example_reasons") or {},
                "by_variant": block.extra("by_variant") or {},
                "error_causes": block.extra("error_causes") or {},
                "repeats": block.extra("repeats"),
                "cost_usd": (block.extra("cost") or {}).get("total_usd"),
            }
        )
    return rows


def _n_scored(block: TaskResults, *, default: int) -> int:
    return block.n_scored if block.n_scored is not None else default


def _overall_ci(rows: list[dict[str, Any]], records: list[dict[str, Any]]) -> tuple[list[float] | None, str]:
    """Task-stratified bootstrap CI of the overall score, when every scored task's score is the mean of
    its samples' scores (a task aggregated otherwise, e.g. circular evaluation, has no such CI). A
    judge-derived score leaves ``judge_failed`` samples out of that mean; other scores keep them."""
    from omnieval.aggregate.repeats import fold_all_repeats
    from omnieval.analysis.stability import macro_bootstrap_ci

    every: dict[str, list[float]] = {}
    judged: dict[str, list[float]] = {}
    for record in fold_all_repeats(records):  # a sample's repeats are one draw of the benchmark (clustered)
        if record.get("scored", True):
            value = float(record.get("score") or 0.0)
            every.setdefault(str(record["task"]), []).append(value)
            if record.get("state") != "judge_failed":
                judged.setdefault(str(record["task"]), []).append(value)
    groups = []
    for row in (r for r in rows if r["scored"]):
        candidates = (every.get(row["name"], []), judged.get(row["name"], []))
        values = next((v for v in candidates if v and abs(sum(v) / len(v) - row["score"]) <= 1e-9), None)
        if values is None:
            return None, f"no CI: the score of task {row['name']} is not the mean of its samples' scores"
        groups.append(values)
    ci = macro_bootstrap_ci(groups)
    return (
        (list(ci), "95 % CI, task-stratified bootstrap")
        if ci
        else (None, "no CI: a task has fewer than two scored samples")
    )


def _summary(rows: list[dict[str, Any]], states: list[str], records: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [r for r in rows if r["scored"]]
    totals: Counter[str] = Counter()
    for row in rows:
        totals.update(row["states"])
    ci, ci_note = _overall_ci(rows, records) if scored else (None, "")
    return {
        "score": sum(r["score"] for r in scored) / len(scored) if scored else None,
        "ci95": ci,
        "ci_note": ci_note,
        "n_tasks": len(rows),
        "n_samples": sum(totals.values()),
        "states": {s: totals.get(s, 0) for s in states},
    }


def _export_tables(
    folder: Path, rows: list[dict[str, Any]], dims: list[dict[str, Any]], states: list[str]
) -> None:
    table = [
        {
            "task": r["name"],
            "score": r["score"],
            "ci95_low": (r["ci95"] or [None])[0],
            "ci95_high": (r["ci95"] or [None, None])[1],
            "n": r["n"],
            **{s: r["states"].get(s, 0) for s in states},
            "human_baseline": r["human_baseline"],
            "version": r["version"],
            "cost_usd": r["cost_usd"],
        }
        for r in rows
    ]
    write_table(folder, "tasks", table, title="Per-task scores")
    capability = [
        {"dimension": d["name"], "level": d["level"], "group": g["value"], "score": g["score"], "n": g["n"]}
        for d in dims
        for g in d["groups"]
    ]
    write_table(folder, "capabilities", capability, title="Capability breakdowns")
    variants = [{"task": r["name"], "variant": v, **b} for r in rows for v, b in r["by_variant"].items()]
    if variants:
        write_table(folder, "variants", variants, title="Score by prompt variant")


def _saved_audit_notes(run_dir: Path, versions: set[str]) -> list[str]:
    """Flip rate and judge-vs-judge agreement from a saved ``omnieval judge audit`` of this run, when it
    audited the judge versions the records hold now (a re-judge since makes it stale: said, not shown)."""
    from omnieval.analysis.judge_runs import audit_notes
    from omnieval.store import read_json

    path = run_dir / "judge_audit.json"
    if not path.is_file():
        return []
    try:
        saved = read_json(path)
        first = next(iter(saved["runs"].values()))
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        return [f"{path.name} could not be read: run `omnieval judge audit` again"]
    if set(first.get("judges") or ()) != versions:
        return [
            f"{path.name} audited other judge versions (re-judged since): run `omnieval judge audit` again"
        ]
    return audit_notes(
        {
            "runs": {},
            "repeats": saved.get("repeats") or {},
            "agreement": saved.get("agreement") or [],
            "runs_without_judge": [],
        }
    )


def _judge_audit(run: RunData) -> dict[str, Any] | None:
    """The "Judge audit" section of a judged run: per judge and task the failures, cost and length bias
    (and position swap) from the records, plus a saved ``omnieval judge audit``'s flips and agreement."""
    if not any(r.get("judge") for r in run.records):
        return None
    from omnieval.analysis.judge_runs import AUDIT_COLUMNS, audit_notes, audit_rows, audit_runs

    audit = audit_runs({run.label: run.records})
    notes = audit_notes(audit) + _saved_audit_notes(run.run_dir, set(audit["runs"][run.label]["judges"]))
    return {"columns": AUDIT_COLUMNS, "rows": audit_rows(audit), "notes": notes}


def build_report(run: RunData, *, tasks: Iterable[Any] | None = None, report_dir: Path | None = None) -> str:
    """Write the sidecar and tables of one run and return the page's HTML."""
    out_dir = report_dir or run.run_dir
    states = state_names(
        *(b.states for b in run.typed.tasks.values()),
        {str(r.get("state")): 1 for r in run.records},
    )
    rows = _task_rows(run.typed)
    dims = task_dimensions(run.typed.tasks) + sample_dimensions(run.records) + judge_dimensions(run.records)
    prompts = PromptSource(tasks, report_dir=out_dir)
    wanted: dict[str, set[str]] = {}
    for record in run.records:
        wanted.setdefault(str(record["task"]), set()).add(str(record["sample_id"]))
    prompts.load(wanted)
    viewer = write_sidecar(out_dir, run.records, states=states, extra=prompts.extra if tasks else None)
    _export_tables(out_dir / "report_tables", rows, dims, states)
    charts = {"scores": task_score_chart(rows), "states": state_chart(rows, states)}
    for i, dim in enumerate(dims):
        for j, fig in enumerate(dimension_charts(dim)):
            charts[f"dim{i}_{j}"] = fig
    notes = [*run.notes, *_group_notes(run.typed), *_task_notes(run.typed), *prompts.problems[:5]]
    if not tasks:
        notes.append(
            "prompts and media are not shown: the run's tasks were not available when this report was "
            "rendered"
        )
    data = {"charts": charts, "viewer": viewer}
    return render_page(
        "report.html.jinja",
        results=run.results,
        run=run,
        rows=rows,
        dims=dims,
        states=states,
        summary=_summary(rows, states, run.records),
        notes=notes,
        data_json=script_json(data),
        judge_audit=_judge_audit(run),
        generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        run_label=run.label,
        viewer_js=(ASSETS / "report_viewer.js").read_text(encoding="utf-8"),
    )


def write_report(
    run_dir: Path, results: dict[str, Any] | None = None, *, tasks: Iterable[Any] | None = None
) -> Path:
    """Render ``report.html`` (plus ``report_samples/`` and ``report_tables/``) in the run directory."""
    run_dir = Path(run_dir)
    if results is not None and not (run_dir / "samples.jsonl").exists():  # a run with nothing to record
        run = RunData(run_dir, results, {}, [])
    else:
        run = load_run(run_dir)
    if results is not None:
        run = dataclasses.replace(run, results=results)
    html = build_report(run, tasks=tasks)
    path = Path(run_dir) / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def _group_notes(results: ResultsFile) -> list[str]:
    """One line per task whose group-aggregated judge metric (ruHHH Group JS) left groups out: a group
    holding a ``judge_failed`` sample is undecided, never credited, so the score stands on fewer groups."""
    out = []
    for name, block in results.tasks.items():
        judge = block.extra("judge") or {}
        if judge.get("groups_left_out"):
            counted = judge.get("groups_judged", 0)
            out.append(
                f"task {name}: {judge.get('groups_key')} counts {counted} of "
                f"{counted + judge['groups_left_out']} "
                f"groups; {judge['groups_left_out']} left out (a judge_failed sample in each)"
            )
    return out


def _task_notes(results: ResultsFile) -> list[str]:
    """The notes a task declares about its own scoring (``metadata.notes``: a benchmark quirk kept for
    parity)."""
    return [
        f"task {name}: {note}"
        for name, block in results.tasks.items()
        for note in (block.extra("metadata") or {}).get("notes") or ()
    ]


def _score_cell(block: TaskResults) -> str:
    if not _n_scored(block, default=1):
        return "– (hidden answers)"
    if not block.scored:
        return "– (no judge value)"  # a judged score whose every judge call failed: never a 0
    return f"{block.score:.4f}"


def results_table(document: dict[str, Any]) -> Any:
    """A rich table of per-task scores and state counts."""
    from rich.table import Table

    results = results_model(document, source="results")
    states = state_names(*(b.states for b in results.tasks.values())) if results.tasks else list(STATES)
    title = f"omnieval — {results.model}" + (" (blind: media removed)" if results.blind else "")
    table = Table(title=title)
    table.add_column("task")
    table.add_column("score", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("n", justify="right")
    for state in states:
        table.add_column(state, justify="right")
    unscored = any(block.extra("prediction_only") for block in results.tasks.values())
    if unscored:  # samples without a gold answer: in n and their state, but not in the score
        table.add_column("unscored", justify="right")
    for name, block in results.tasks.items():
        ci = block.ci95
        table.add_row(
            name,
            _score_cell(block),
            f"{ci[0]:.3f}–{ci[1]:.3f}" if ci else "–",
            str(block.n),
            *(str(block.states.get(s, 0)) for s in states),
            *([str(block.extra("prediction_only", 0))] if unscored else []),
        )
    table.caption = "\n".join(_group_notes(results)) or None
    return table
