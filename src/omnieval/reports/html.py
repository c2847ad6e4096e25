"""The per-run HTML report (self-contained, plotly inlined) and the terminal results table.

``report.html`` holds the summary, charts and task tables; the sample viewer reads ``report_samples/``
lazily (see :mod:`omnieval.reports.sidecar`). ``report_tables/`` holds every table as Markdown, CSV and
JSON. Everything is rebuilt from the run directory's stored records, so ``omnieval report RUN`` can
re-render a report at any time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import math
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache

from omnieval.reports.charts import dimension_charts, state_chart, task_score_chart
from omnieval.reports.embed import html_text, plotly_js, plotly_js_bytes, script_json
from omnieval.reports.loading import STREAM_BYTES, RecordStream, RunData, load_run, state_names
from omnieval.reports.problems import leak_warning
from omnieval.reports.sidecar import write_sidecar
from omnieval.reports.spoken import spoken_charts, spoken_rows
from omnieval.reports.tables import write_table
from omnieval.reports.taxonomy import JudgeDimensions, SampleDimensions, task_dimensions
from omnieval.reports.views import PromptSource
from omnieval.sources.loader import cache_root
from omnieval.types import STATES
from omnieval.types.files import ManifestFile, ResultsFile, TaskResults, results_model

__all__ = ["ASSETS", "human_baseline", "page_assets", "render_page", "results_table", "write_report"]

ASSETS = Path(__file__).parent


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """The pages' templates compiled once per template text, kept in ``<cache root>/templates``: compiling
    the report's cost every run ≈ 30 ms. A folder that cannot be read or written is no error (the
    template is compiled as before); jinja keys each entry by the template's checksum and refuses
    another Python's bytecode."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            Path(self.directory).mkdir(parents=True, exist_ok=True)
            super().dump_bytecode(bucket)


_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(ASSETS)),
    autoescape=jinja2.select_autoescape(["html", "jinja"]),
    finalize=html_text,
    bytecode_cache=_TemplateCache(str(cache_root() / "templates")),
)


def page_assets(*, plotly: str | None = None) -> dict[str, str]:
    """The inline CSS, plotly.js (or ``plotly`` in its place) and shared page script every omnieval page
    embeds."""
    return {
        "css": (ASSETS / "report.css").read_text(encoding="utf-8"),
        "plotly": plotly_js() if plotly is None else plotly,
        "common_js": (ASSETS / "report_common.js").read_text(encoding="utf-8"),
    }


def render_page(template: str, **context: Any) -> str:
    """Render one of the package's page templates with the shared assets."""
    return _ENV.get_template(template).render(**page_assets(), **context)


def warm_up() -> None:
    """Compile the run report's template now (jinja caches it) and import rich for the results table
    (:func:`results_table`, which ``omnieval run`` prints), e.g. on a thread during the run."""
    import rich.console
    import rich.table  # noqa: F401

    _ENV.get_template("report.html.jinja")


def write_page(path: Path, template: str, **context: Any) -> Path:
    """:func:`render_page` streamed into ``path``: the page (~10 MB as text, plotly being most of it) is
    never held whole nor encoded at once, and the plotly bundle goes from its cached UTF-8 bytes to the
    file, never through jinja (whose ``|safe`` and escape steps each copied it); this was a run's peak
    RSS. Written beside and renamed, so a killed render never leaves half a page."""
    partial = path.with_name(f".{path.name}.partial")
    chunks = _ENV.get_template(template).generate(**page_assets(plotly=_PLOTLY_SLOT), **context)
    with partial.open("w", encoding="utf-8") as fh:
        for chunk in chunks:
            if chunk == _PLOTLY_SLOT:
                fh.flush()
                fh.buffer.write(plotly_js_bytes())
            else:
                fh.write(chunk)
    os.replace(partial, path)
    return path


_PLOTLY_SLOT = "\x00omnieval-plotly-bundle\x00"
"""What jinja sees in place of the bundle in :func:`write_page`, which writes the bundle itself."""


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
                "version": block.version,
                "human_baseline": human_baseline(block.metadata),
                "prediction_only": block.prediction_only,
                "parse_fallbacks": block.parse_fallbacks,
                "example_reasons": block.example_reasons,
                "by_variant": {v: score.model_dump() for v, score in block.by_variant.items()},
                "breakdowns": {
                    key: {v: cell.model_dump() for v, cell in cells.items()}
                    for key, cells in block.breakdowns.items()
                },
                "error_causes": {c: count.model_dump() for c, count in block.error_causes.items()},
                "repeats": block.repeats.model_dump(mode="json") if block.repeats is not None else None,
                "agent": block.agent.model_dump(mode="json") if block.agent is not None else None,
                "cost_usd": block.cost.total_usd if block.cost is not None else None,
                "latency": latency_cell(block),
            }
        )
    return rows


def _n_scored(block: TaskResults, *, default: int) -> int:
    return block.n_scored if block.n_scored is not None else default


class _TaskScores:
    """Per task, the scored samples' scores (a sample's repeats folded into their mean, as
    :func:`~omnieval.aggregate.repeats.fold_all_repeats` does, in its order: plain records, then folded
    samples), with and without ``judge_failed`` samples; fed one record at a time, holding floats only."""

    def __init__(self) -> None:
        self.every: dict[str, list[float]] = {}
        self.judged: dict[str, list[float]] = {}
        self.repeats: dict[tuple[str, str], tuple[bool, list[float], set[str]]] = {}

    def add(self, record: dict[str, Any]) -> None:
        if record.get("repeat") is not None:
            key = (str(record["task"]), str(record["sample_id"]))
            folded = self.repeats.setdefault(key, (bool(record.get("scored", True)), [], set()))
            folded[1].append(float(record.get("score") or 0.0))
            folded[2].add(str(record.get("state")))
        elif record.get("scored", True):
            self._add(str(record["task"]), float(record.get("score") or 0.0), record.get("state"))

    def _add(self, task: str, value: float, state: Any) -> None:
        self.every.setdefault(task, []).append(value)
        if state != "judge_failed":
            self.judged.setdefault(task, []).append(value)

    def result(self) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
        for (task, _), (scored, scores, states) in self.repeats.items():
            if scored:  # the fold's state: judge_failed only when every repeat is
                self._add(
                    task,
                    math.fsum(scores) / len(scores),
                    "judge_failed" if states == {"judge_failed"} else "ok",
                )
        self.repeats = {}
        return self.every, self.judged


_AUDITED = ("task", "sample_id", "state", "response", "judge")
"""The record fields a judge audit reads (:mod:`omnieval.analysis.judge_runs`): only these are kept."""


class _RecordSummary:
    """What the page needs from the records besides the sidecar, gathered in one pass over them (a large
    run's records are read from disk again for each pass): states, dimensions, the samples to rebuild
    prompts for, per-task scores for the overall CI, and the judged records' audited fields."""

    def __init__(self, records: Iterable[dict[str, Any]]) -> None:
        self.states: dict[str, int] = {}
        self.wanted: dict[str, set[str]] = {}
        self.judged: list[dict[str, Any]] = []
        self.scores = _TaskScores()
        sample_dims, judge_dims = SampleDimensions(), JudgeDimensions()
        repeats: dict[tuple[str, str], tuple[dict[str, Any], list[float]]] = {}
        for record in records:
            self.states[str(record.get("state"))] = 1
            self.wanted.setdefault(str(record["task"]), set()).add(str(record["sample_id"]))
            if record.get("repeat") is None:
                sample_dims.add(record)
            else:  # a group's n counts samples, not repeats: a sample's repeats enter once, their mean
                key = (str(record["task"]), str(record["sample_id"]))
                first = {k: record.get(k) for k in ("scored", "metadata", "variant")}
                repeats.setdefault(key, (first, []))[1].append(float(record.get("score") or 0.0))
            judge_dims.add(record)
            self.scores.add(record)
            if record.get("judge"):
                self.judged.append({k: record.get(k) for k in _AUDITED})
        for first, scores in repeats.values():
            sample_dims.add({**first, "score": math.fsum(scores) / len(scores)})
        self.dimensions = sample_dims.dimensions() + judge_dims.dimensions()


def _overall_ci(rows: list[dict[str, Any]], scores: _TaskScores) -> tuple[list[float] | None, str]:
    """Task-stratified bootstrap CI of the overall score, when every scored task's score is the mean of
    its samples' scores (a task aggregated otherwise, e.g. circular evaluation, has no such CI). A
    judge-derived score leaves ``judge_failed`` samples out of that mean; other scores keep them."""
    from omnieval.analysis.stability import macro_bootstrap_ci

    every, judged = scores.result()  # a sample's repeats are one draw of the benchmark (clustered)
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


def _summary(rows: list[dict[str, Any]], states: list[str], scores: _TaskScores) -> dict[str, Any]:
    scored = [r for r in rows if r["scored"]]
    totals: Counter[str] = Counter()
    for row in rows:
        totals.update(row["states"])
    ci, ci_note = _overall_ci(rows, scores) if scored else (None, "")
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
    breakdowns = [
        {"task": r["name"], "breakdown": key, "value": v, **b}
        for r in rows
        for key, cells in r["breakdowns"].items()
        for v, b in cells.items()
    ]
    if breakdowns:
        write_table(folder, "breakdowns", breakdowns, title="Score by breakdown (the benchmarks' own)")
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


def _judge_audit(run: RunData, judged: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The "Judge audit" section of a judged run: per judge and task the failures, cost and length bias
    (and position swap) from the records, plus a saved ``omnieval judge audit``'s flips and agreement."""
    if not judged:
        return None
    from omnieval.analysis.judge_runs import AUDIT_COLUMNS, audit_notes, audit_rows, audit_runs

    audit = audit_runs({run.label: judged})
    notes = audit_notes(audit) + _saved_audit_notes(run.run_dir, set(audit["runs"][run.label]["judges"]))
    return {"columns": AUDIT_COLUMNS, "rows": audit_rows(audit), "notes": notes}


def build_report(run: RunData, *, tasks: Iterable[Any] | None = None, report_dir: Path | None = None) -> str:
    """Write the sidecar and tables of one run and return the page's HTML."""
    return render_page("report.html.jinja", **report_context(run, tasks=tasks, report_dir=report_dir))


def report_context(
    run: RunData,
    *,
    tasks: Iterable[Any] | None = None,
    report_dir: Path | None = None,
    prompts: PromptSource | None = None,
) -> dict[str, Any]:
    """Write the sidecar and tables of one run and return what the page template needs; ``prompts``: the
    run's prompts already read and rendered for this folder (:meth:`PromptSource.prerender`)."""
    out_dir = report_dir or run.run_dir
    summary = _RecordSummary(run.records)
    states = state_names(*(b.states for b in run.typed.tasks.values()), summary.states)
    rows = _task_rows(run.typed)
    dims = task_dimensions(run.typed.tasks) + summary.dimensions
    if prompts is None or prompts.report_dir != out_dir:
        prompts = PromptSource(tasks, report_dir=out_dir)
    prompts.load(summary.wanted, spill=isinstance(run.records, RecordStream))
    viewer = write_sidecar(out_dir, run.records, states=states, extra=prompts.extra if tasks else None)
    viewer["blind"] = bool(run.typed.blind)  # the viewer says the media it shows were not shown to the model
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
    spoken = spoken_rows(run.records, run_dir=run.run_dir, report_dir=out_dir)
    charts.update(spoken_charts(spoken))
    data = {"charts": charts, "viewer": viewer}
    return dict(
        results=run.results,
        run=run,
        rows=rows,
        dims=dims,
        states=states,
        summary=_summary(rows, states, summary.scores),
        notes=notes,
        data_json=script_json(data),
        judge_audit=_judge_audit(run, summary.judged),
        generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        run_label=run.label,
        spoken=spoken,
        viewer_js=(ASSETS / "report_viewer.js").read_text(encoding="utf-8"),
    )


def write_report(
    run_dir: Path,
    results: ResultsFile | None = None,
    *,
    tasks: Iterable[Any] | None = None,
    prompts: PromptSource | None = None,
) -> Path:
    """Render ``report.html`` (plus ``report_samples/`` and ``report_tables/``) in the run directory;
    ``prompts``: the sample viewer's prompts, read and rendered while the run waited on the model."""
    run_dir = Path(run_dir)
    if results is not None and not (run_dir / "samples.jsonl").exists():  # a run with nothing to record
        run = RunData(run_dir, results, ManifestFile(), [])
    else:
        run = load_run(run_dir, stream_above=STREAM_BYTES)
    if results is not None:
        run = dataclasses.replace(run, results=results)
    context = report_context(run, tasks=tasks, prompts=prompts)
    return write_page(run_dir / "report.html", "report.html.jinja", **context)


def _group_notes(results: ResultsFile) -> list[str]:
    """One line per task whose group-aggregated judge metric (ruHHH Group JS) left groups out: a group
    holding a ``judge_failed`` sample is undecided, never credited, so the score stands on fewer groups."""
    out = []
    for name, block in results.tasks.items():
        judge = block.judge
        if judge is not None and judge.groups_left_out:
            counted = judge.groups_judged or 0
            out.append(
                f"task {name}: {judge.groups_key} counts {counted} of "
                f"{counted + judge.groups_left_out} "
                f"groups; {judge.groups_left_out} left out (a judge_failed sample in each)"
            )
    return out


def _task_notes(results: ResultsFile) -> list[str]:
    """The notes a task declares about its own scoring (``metadata.notes``: a benchmark quirk kept for
    parity), responses cut at max_tokens yet scored, answers holding chat-template tokens, and streamed
    latency beside the score."""
    from omnieval.reports.problems import truncated_note

    notes = [
        f"task {name}: {note}"
        for name, block in results.tasks.items()
        for note in block.metadata.get("notes") or ()
    ]
    scored_cut = [truncated_note(name, block) for name, block in results.tasks.items()]
    notes += [note.removeprefix("note: ") for note in scored_cut if note]
    for name, block in results.tasks.items():
        if line := leak_warning(name, block):
            notes.append(line)
    if any(block.latency for block in results.tasks.values()):
        backend = results.backend
        notes.append(
            f"latency (--stream): {backend.get('base_url') or backend.get('provider', '?')}"
            f"{_server_words(backend)} at concurrency {backend.get('concurrency', '?')}; time to first "
            "token and output tokens per second are p50/p95 over the answers timed in this run (cache hits "
            "left out)"
        )
    return notes


def _server_words(backend: dict[str, Any]) -> str:
    server = backend.get("server") or {}
    kind = server.get("kind") if isinstance(server, dict) else None
    return f" ({kind})" if kind else ""


def latency_cells(block: TaskResults) -> tuple[str, str]:
    """``("0.12/0.30 s", "85.0/60.2")``: time to first token and output tokens per second, p50/p95, of a
    streamed task; empty otherwise."""
    timing = block.latency
    if timing is None:
        return "", ""

    def pair(a: float | None, b: float | None, digits: int) -> str:
        return "/".join("–" if v is None else f"{v:.{digits}f}" for v in (a, b))

    return (
        f"{pair(timing.ttft_p50_s, timing.ttft_p95_s, 3)} s",
        pair(timing.tokens_per_s_p50, timing.tokens_per_s_p95, 1),
    )


def latency_cell(block: TaskResults) -> str:
    """``TTFT 0.120/0.300 s · 85.0/60.2 tok/s (n=24)`` for the report's task table; empty when not
    streamed."""
    if block.latency is None:
        return ""
    ttft, rate = latency_cells(block)
    return f"TTFT {ttft} · {rate} tok/s (n={block.latency.n})"


def _score_cell(block: TaskResults) -> str:
    if not _n_scored(block, default=1):
        return "– (hidden answers)"
    if not block.scored or block.score is None:
        return "– (no judge value)"  # a judged score whose every judge call failed: never a 0
    return f"{block.score:.4f}"


def results_table(document: dict[str, Any] | ResultsFile) -> Any:
    """A rich table of per-task scores and state counts."""
    from rich.table import Table

    results = document if isinstance(document, ResultsFile) else results_model(document, source="results")
    states = state_names(*(b.states for b in results.tasks.values())) if results.tasks else list(STATES)
    title = f"omnieval — {results.model}" + (" (blind: media removed)" if results.blind else "")
    table = Table(title=title)
    table.add_column("task")
    table.add_column("score", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("n", justify="right")
    for state in states:
        table.add_column(state, justify="right")
    unscored = any(block.prediction_only for block in results.tasks.values())
    if unscored:  # samples without a gold answer: in n and their state, but not in the score
        table.add_column("unscored", justify="right")
    timed = any(block.latency for block in results.tasks.values())
    if timed:  # --stream: latency beside the score, from the same run
        table.add_column("TTFT p50/p95", justify="right")
        table.add_column("tok/s p50/p95", justify="right")
    for name, block in results.tasks.items():
        ci = block.ci95
        table.add_row(
            name,
            _score_cell(block),
            f"{ci[0]:.3f}–{ci[1]:.3f}" if ci else "–",
            str(block.n),
            *(str(block.states.get(s, 0)) for s in states),
            *([str(block.prediction_only)] if unscored else []),
            *(latency_cells(block) if timed else ()),
        )
    table.caption = "\n".join(_group_notes(results)) or None
    return table
