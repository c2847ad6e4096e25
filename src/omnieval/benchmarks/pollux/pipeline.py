"""End to end over files: items + expert annotations (+ judge outputs) → cleaned triples, audit,
judge-versus-expert report and tables. Judge lines carry either a ``score`` or the judge's
``raw_output`` (parsed by the POLLUX parser); every line ends in a counted state: ``scored``,
``judge_failed`` (unparseable, out of scale, wrong language) or ``rejected`` (unknown item/criterion)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from omnieval.benchmarks.pollux.annotations import (
    aggregate,
    clean,
    import_annotations,
    resolve_criterion,
    unknown_or_outside,
)
from omnieval.benchmarks.pollux.items import PolluxItem, load_items
from omnieval.benchmarks.pollux.matcher import match_criteria
from omnieval.benchmarks.pollux.parser import parse_judge_output
from omnieval.benchmarks.pollux.stats import GROUPINGS, judge_report, self_family_bias
from omnieval.benchmarks.pollux.tables import expert_table, expert_vc, judge_table, score_table
from omnieval.benchmarks.pollux.taxonomy import CriterionVariant, criteria_taxonomy
from omnieval.errors import SourceError
from omnieval.sources.readers import read_rows
from omnieval.store.records import typed_records
from omnieval.types import SampleResult
from omnieval.types.files import ResultsFile, load_file
from omnieval.types.judge import JudgeAttempt

__all__ = ["evaluate", "load_judge_scores"]

Triple = tuple[str, str, str]


def _judge_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows from a JSONL/CSV file, or from a run directory: a ``pollux_judge:`` run (the judge was the
    model; its raw output is the response) or a ``pollux:`` run judged with ``--judge`` (one judge call
    per criterion in each record's ``judge.calls``)."""
    if not path.is_dir():
        yield from read_rows("csv" if path.suffix == ".csv" else "jsonl", path=path)
        return
    if not (path / "samples.jsonl").exists():
        raise SourceError("not a run directory (no samples.jsonl)", path=str(path))
    model = _run_model(path)
    index = 0
    for rec in typed_records(path / "samples.jsonl"):
        if rec.task == "pollux":  # a run with repeats: each repeat is an answer set, MODEL#r
            name = model if rec.repeat is None else f"{model}#{rec.repeat}"
            for call in _judged_calls(rec, name):
                yield index, call
                index += 1
            continue
        triple = rec.metadata.get("pollux_triple") or {}
        row: dict[str, Any] = {**triple, "raw_output": rec.response or ""}
        if rec.state not in ("ok", "parse_failed"):
            row["error"] = rec.reason or rec.state
        yield index, row
        index += 1


def _run_model(path: Path) -> str:
    results = path / "results.json"
    if results.exists():
        return load_file(results, ResultsFile).model
    return path.name


def _judged_calls(rec: SampleResult, model: str) -> Iterator[dict[str, Any]]:
    if not rec.judge:
        yield {"item_id": rec.sample_id, "model": model, "no_answer": rec.reason or rec.state}
        return
    for call in rec.judge.calls:
        last = call.attempts[-1] if call.attempts else JudgeAttempt()
        row = {
            "item_id": rec.sample_id,
            "model": model,
            "criterion": call.label,
            "score": call.verdict,
            "raw": last.raw,
        }
        if call.verdict is None:
            row["error"] = last.error or "no verdict"
        yield row


def load_judge_scores(
    path: Path,
    items: dict[str, PolluxItem],
    *,
    check_feedback: bool = False,
    check_language: bool = True,
    allow_real: bool = False,
) -> tuple[dict[Triple, float], dict[str, Any]]:
    """Judge lines ``item_id, model, criterion`` + ``score`` or ``raw_output`` → scores and state counts.

    States: ``scored``, ``judge_failed`` (call failed, unparseable, out of scale), ``rejected`` (unknown
    item or criterion), ``no_answer`` (the model under test gave none) and ``critical_gated`` (the judge found
    a critical violation in that answer, so
    its other criteria are not scored)."""
    path = Path(path)
    if not path.exists():
        raise SourceError("file not found", path=str(path))
    scores: dict[Triple, float] = {}
    states: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    groups: dict[Triple, str] = {}
    for index, row in _judge_rows(path):
        if "no_answer" in row:
            states["no_answer"] += 1
            reasons[f"no answer to judge: {row['no_answer']}"] += 1
            continue
        item, variant, rejection = _resolve_row(row, items)
        if item is None or variant is None:
            states["rejected"] += 1
            reasons[rejection] += 1
            continue
        triple = (item.id, str(row["model"]), variant.id)
        if triple in scores:
            raise SourceError(
                f"row {index + 1}: a second judge score for this triple",
                path=str(path),
                sample_id=item.id,
                field="criterion",
            )
        score, reason = _score(
            row,
            variant.min,
            variant.max,
            variant.higher_is_better,
            _FeedbackRules(check_feedback, check_language),
            allow_real,
        )
        if score is None:
            states["judge_failed"] += 1
            reasons[reason] += 1
            continue
        states["scored"] += 1
        scores[triple] = score
        groups[triple] = variant.group
    _gate_critical(scores, groups, states)
    return scores, {"states": dict(states), "reasons": dict(reasons)}


def _resolve_row(
    row: dict[str, Any], items: dict[str, PolluxItem]
) -> tuple[PolluxItem | None, CriterionVariant | None, str]:
    """The row's item and criterion variant, or why the row is rejected (unknown item/criterion, no model)."""
    item = items.get(str(row.get("item_id")))
    if item is None:
        return None, None, "unknown item"
    variants = match_criteria(
        task_type=item.task_type,
        subtype=item.task_subtype,
        style=item.functional_style,
        ethics=item.ethics_flag,
    )
    variant = resolve_criterion(str(row.get("criterion")), variants)
    if variant is None:
        return item, None, unknown_or_outside(str(row.get("criterion")))
    if not row.get("model"):
        return item, None, "missing model"
    return item, variant, ""


def _gate_critical(scores: dict[Triple, float], groups: dict[Triple, str], states: Counter[str]) -> None:
    """An answer with a critical violation has its other criteria removed (counted ``critical_gated``)."""
    violated = {(i, m) for (i, m, c), s in scores.items() if groups[(i, m, c)] == "critical" and s >= 1}
    for triple in [t for t in scores if (t[0], t[1]) in violated and groups[t] != "critical"]:
        del scores[triple]
        states["scored"] -= 1
        states["critical_gated"] += 1


@dataclass(frozen=True)
class _FeedbackRules:
    """Which feedback rules a judge's raw output must meet: App. B's (``feedback``), Russian
    (``language``)."""

    feedback: bool
    language: bool


def _score(
    row: dict[str, Any], low: int, high: int, better: bool, rules: _FeedbackRules, allow_real: bool
) -> tuple[float | None, str]:
    if row.get("error"):
        return None, f"judge call failed: {row['error']}"
    if row.get("raw"):  # a judge-core verdict: re-read its raw text for the feedback rules only (the
        # score itself is checked below against this criterion's scale)
        parsed = parse_judge_output(
            str(row["raw"]),
            min_score=low,
            max_score=high,
            check_feedback=rules.feedback,
            check_language=rules.language,
            higher_is_better=better,
            allow_real=True,
        )
        if not parsed.ok and parsed.reason.startswith("feedback:"):  # type: ignore[union-attr]
            return None, parsed.reason  # type: ignore[union-attr]
    if row.get("raw_output") not in (None, ""):
        parsed = parse_judge_output(
            str(row["raw_output"]),
            min_score=low,
            max_score=high,
            check_feedback=rules.feedback,
            check_language=rules.language,
            higher_is_better=better,
            allow_real=allow_real,
        )
        return (float(parsed.value["score"]), "") if parsed.ok else (None, parsed.reason)  # type: ignore[union-attr]
    value = row.get("score")
    try:
        score = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None, "score missing or not a number"
    if not low <= score <= high:
        return None, f"score outside the criterion scale {low}..{high}"
    if not allow_real and not score.is_integer():
        return None, "score is not an integer"
    return score, ""


def evaluate(
    *,
    items_path: Path,
    annotations_path: Path,
    judge_paths: dict[str, Path] | None = None,
    out_dir: Path | None = None,
    critical_scope: Literal["answer", "triple"] = "answer",
    reference: Literal["mode", "mean"] = "mode",
    seed: int = 0,
    strict: bool = False,
    check_feedback: bool = False,
    check_language: bool = True,
    families: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """Import, clean, aggregate; with judges, the judge report; with ``out_dir``, every table file.

    Judge feedback must be Russian (both POLLUX prompts ask for it): ``check_language=False`` accepts
    any language, e.g. for a judge prompted in English on purpose."""
    items = {i.id: i for i in load_items(items_path)}
    variants = {v.id: v for v in criteria_taxonomy().variants}
    estimates, audit = import_annotations(annotations_path, items, strict=strict)
    kept, steps = clean(estimates, variants, critical_scope=critical_scope)
    samples, all_na = aggregate(kept, items, variants)
    result: dict[str, Any] = {
        "import": audit.as_dict(),
        "cleaning": steps,
        "n_samples": len(samples),
        "n_all_na_triples": all_na,
        "judges": {},
    }
    reports, per_split = _judge_reports(
        samples,
        items,
        judge_paths or {},
        result["judges"],
        _JudgeOptions(reference, seed, check_feedback, check_language, families or {}),
    )
    tables = _tables(samples, reports, per_split)
    if out_dir is not None:
        _write(out_dir, result, tables)
    return result


@dataclass(frozen=True)
class _JudgeOptions:
    reference: Literal["mode", "mean"]
    seed: int
    check_feedback: bool
    check_language: bool
    families: dict[str, list[str]]


def _judge_reports(
    samples: list[Any],
    items: dict[str, PolluxItem],
    judge_paths: dict[str, Path],
    out: dict[str, Any],
    options: _JudgeOptions,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, dict[str, Any]]]]:
    """Each judge's report overall and per split; ``out`` gets each judge's audit, report and family bias."""
    reports: dict[str, dict[str, Any]] = {}
    per_split: dict[str, dict[str, dict[str, Any]]] = {}
    splits = sorted({s.split for s in samples})
    for name, path in judge_paths.items():
        scores, judge_audit = load_judge_scores(
            path,
            items,
            allow_real=options.reference == "mean",
            check_feedback=options.check_feedback,
            check_language=options.check_language,
        )
        reports[name] = judge_report(samples, scores, seed=options.seed, reference=options.reference)
        out[name] = {"audit": judge_audit, "report": reports[name]}
        if name in options.families:
            out[name]["self_family"] = self_family_bias(reports[name], family_models=options.families[name])
        for split in splits:
            subset = [s for s in samples if s.split == split]
            per_split.setdefault(split, {})[name] = judge_report(
                subset,
                scores,
                seed=options.seed,
                reference=options.reference,
                groupings=("overall", "model"),
            )
    return reports, per_split


def _tables(
    samples: list[Any],
    reports: dict[str, dict[str, Any]],
    per_split: dict[str, dict[str, dict[str, Any]]],
) -> list[Any]:
    """The paper's tables: experts always; with judges, scores, judge-vs-expert metrics and per split."""
    tables = [
        expert_table(samples, by="task_type", title="Table 1: mean expert score by task type"),
        expert_table(samples, by="criterion_name", title="Table 9: mean expert score by criterion"),
    ]
    if not reports:
        return tables
    tables.append(score_table(samples, reports, title="Table 10: mean score by model, experts and judges"))
    for grouping in ("model", "task_type", "criterion", "macrogroup", "split"):
        experts = expert_vc(samples, GROUPINGS[grouping])
        for metric in ("mae", "judge_vc", "spearman"):
            tables.append(
                judge_table(
                    reports,
                    grouping=grouping,
                    metric=metric,
                    experts=experts if metric == "judge_vc" else None,
                )
            )
    for split, split_reports in per_split.items():
        for metric in ("mae", "judge_vc", "spearman"):
            tables.append(
                judge_table(
                    split_reports, grouping="model", metric=metric, title=f"{metric} by model, {split} split"
                )
            )
    return tables


def _write(out_dir: Path, result: dict[str, Any], tables: list[Any]) -> None:

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "pollux_report.json").write_text(
        json.dumps(result, ensure_ascii=False, indent=2, default=str), encoding="utf-8"
    )
    markdown = []
    for index, table in enumerate(tables, 1):
        stem = f"table_{index:02d}"
        (out_dir / f"{stem}.csv").write_text(table.to_csv(), encoding="utf-8")
        (out_dir / f"{stem}.json").write_text(table.to_json(), encoding="utf-8")
        markdown.append(table.to_markdown())
    (out_dir / "tables.md").write_text("\n".join(markdown), encoding="utf-8")
    from omnieval.benchmarks.pollux.html import html_report

    (out_dir / "pollux_report.html").write_text(html_report(result, tables), encoding="utf-8")
