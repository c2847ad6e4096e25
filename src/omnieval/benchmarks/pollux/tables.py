"""The paper's tables as data: experts' mean score by model × task type (Table 1) or × criterion
(Table 9), and judge × grouping for MAE / VC / ρ (Tables 2, 10–18). Cells nobody evaluated show "—";
exports to Markdown, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from omnieval.benchmarks.pollux.annotations import AggregatedSample

__all__ = ["Table", "expert_table", "expert_vc", "judge_table", "score_table"]

MISSING = "—"


@dataclass(frozen=True)
class Table:
    title: str
    row_header: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: Mapping[tuple[str, str], float | None]
    digits: int = 3

    def cell(self, row: str, column: str) -> str:
        value = self.cells.get((row, column))
        return MISSING if value is None else f"{value:.{self.digits}f}"

    def to_markdown(self) -> str:
        head = f"| {self.row_header} | " + " | ".join(self.columns) + " |"
        rule = "|" + "---|" * (len(self.columns) + 1)
        body = [f"| {r} | " + " | ".join(self.cell(r, c) for c in self.columns) + " |" for r in self.rows]
        return "\n".join([f"**{self.title}**", "", head, rule, *body]) + "\n"

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow([self.row_header, *self.columns])
        for r in self.rows:
            writer.writerow([r, *(self.cell(r, c) for c in self.columns)])
        return buffer.getvalue()

    def to_json(self) -> str:
        data = {
            "title": self.title,
            "row_header": self.row_header,
            "columns": list(self.columns),
            "rows": [
                {self.row_header: r, **{c: self.cells.get((r, c)) for c in self.columns}} for r in self.rows
            ],
        }
        return json.dumps(data, ensure_ascii=False, indent=2)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def expert_table(samples: Sequence[AggregatedSample], *, by: str = "task_type", title: str = "") -> Table:
    """Mean of per-triple expert means, rows = ``by`` (task_type | criterion_name | macrogroup), columns =
    models."""
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for s in samples:
        cells[(str(getattr(s, by)), s.model)].append(s.mean)
        cells[("Avg.", s.model)].append(s.mean)
    rows = [*sorted({r for r, _ in cells} - {"Avg."}), "Avg."]
    columns = tuple(sorted({c for _, c in cells}))
    return Table(
        title or f"Mean expert score by {by}",
        by,
        tuple(rows),
        columns,
        {k: _mean(v) for k, v in cells.items()},
    )


def judge_table(
    reports: Mapping[str, Mapping[str, Any]],
    *,
    grouping: str,
    metric: str,
    title: str = "",
    experts: Mapping[str, float | None] | None = None,
) -> Table:
    """rows = the grouping's keys, columns = judges; the "Avg." row is each judge's overall value.
    ``experts`` adds a first "Experts" column (inter-expert VC in Tables 14–16)."""
    cells: dict[tuple[str, str], float | None] = {}
    keys: set[str] = set(k for k in (experts or {}) if k != "Avg.")
    for key, value in (experts or {}).items():
        cells[(key, "Experts")] = value
    for judge, report in reports.items():
        for key, block in report.get(grouping, {}).items():
            keys.add(key)
            cells[(key, judge)] = block.get(metric)
        overall = report.get("overall", {}).get("all", {})
        cells[("Avg.", judge)] = overall.get(metric)
    columns = ("Experts", *reports) if experts is not None else tuple(reports)
    return Table(title or f"{metric} by {grouping}", grouping, (*sorted(keys), "Avg."), columns, cells)


def expert_vc(
    samples: Sequence[AggregatedSample], key: Callable[[AggregatedSample], str]
) -> dict[str, float | None]:
    """Mean inter-expert Verdict Confidence per group (and "Avg." over all triples)."""
    groups: dict[str, list[float]] = defaultdict(list)
    for s in samples:
        groups[key(s)].append(s.vc)
        groups["Avg."].append(s.vc)
    return {k: _mean(v) for k, v in groups.items()}


def score_table(
    samples: Sequence[AggregatedSample], reports: Mapping[str, Mapping[str, Any]], *, title: str
) -> Table:
    """Table 10's layout: per evaluated model, the experts' mean score and each judge's mean score over the
    triples it judged (MAE beside it is in the judge × model MAE table)."""
    cells: dict[tuple[str, str], float | None] = {}
    by_model: dict[str, list[float]] = defaultdict(list)
    for s in samples:
        by_model[s.model].append(s.mean)
        by_model["Avg."].append(s.mean)
    for model, means in by_model.items():
        cells[(model, "Experts")] = _mean(means)
    for judge, report in reports.items():
        for model, block in report.get("model", {}).items():
            cells[(model, judge)] = block.get("mean_judge")
        cells[("Avg.", judge)] = report.get("overall", {}).get("all", {}).get("mean_judge")
    rows = (*sorted(set(by_model) - {"Avg."}), "Avg.")
    return Table(title, "model", rows, ("Experts", *reports), cells)
