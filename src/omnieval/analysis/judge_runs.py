"""Judge audits over stored runs: the numbers :mod:`omnieval.analysis.judge_audit` computes, read from
the ``judge`` block of each ``samples.jsonl`` record, plus a Markdown section for reports.

Runs judged with the same judge version are repeats of one judge (flip rate); runs with different
versions are different judges (agreement; Cohen's κ when both are binary). Within each run: the
length-bias check (verdict vs the length of the judged response), the judge's cost, and the position
swap for pairwise protocols, whose calls come in pairs labelled ``ab`` / ``ba`` (or ``X`` /
``X:swapped``) with verdict 1 = the first answer shown wins, 0 = the second, 0.5 = a tie.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from omnieval.analysis.judge_audit import binary_agreement, flip_rate, judge_cost, length_bias, position_swap
from omnieval.store.records import RecordId, record_id

__all__ = [
    "AUDIT_COLUMNS",
    "SWAP_SUFFIX",
    "audit_markdown",
    "audit_notes",
    "audit_rows",
    "audit_runs",
    "judged_items",
]

SWAP_SUFFIX = ":swapped"
Item = RecordId
"""``(task, sample_id, repeat)``: each repeat of a sample is judged, and audited, as its own item."""


def judged_items(records: Sequence[Mapping[str, Any]]) -> dict[Item, Mapping[str, Any]]:
    """``(task, sample_id, repeat) → record`` for records that went through the judge stage."""
    return {record_id(r): r for r in records if r.get("judge")}


def _label(item: Item) -> str:
    task, sample_id, repeat = item
    return f"{task}/{sample_id}" if repeat is None else f"{task}/{sample_id}#{repeat}"


def _attempts(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [a for call in record["judge"].get("calls") or () for a in call.get("attempts") or ()]


def _slot(verdict: Any) -> str | None:
    return {1.0: "A", 0.0: "B", 0.5: "tie"}.get(float(verdict)) if verdict is not None else None


def _swap_pairs(items: Mapping[Item, Mapping[str, Any]]) -> list[tuple[str | None, str | None]]:
    pairs = []
    for record in items.values():
        calls = {str(c.get("label")): c.get("verdict") for c in record["judge"].get("calls") or ()}
        for label, verdict in calls.items():
            swapped = "ba" if label == "ab" else label + SWAP_SUFFIX
            if not label.endswith(SWAP_SUFFIX) and swapped in calls:
                pairs.append((_slot(verdict), _slot(calls[swapped])))
    return pairs


def _by_task(items: Mapping[Item, Mapping[str, Any]]) -> dict[str, dict[Item, Mapping[str, Any]]]:
    groups: dict[str, dict[Item, Mapping[str, Any]]] = defaultdict(dict)
    for key, record in items.items():
        groups[key[0]][key] = record
    return dict(groups)


def _run_audit(items: Mapping[Item, Mapping[str, Any]]) -> dict[str, Any]:
    """The run's audit; with several judged tasks, each task's own too (verdict scales differ by task)."""
    out = _group_audit(items)
    tasks = _by_task(items)
    if len(tasks) > 1:
        out["tasks"] = {task: _group_audit(group) for task, group in sorted(tasks.items())}
    return out


def _group_audit(items: Mapping[Item, Mapping[str, Any]]) -> dict[str, Any]:
    judges = Counter(
        str(r["judge"].get("version") or r["judge"].get("judge")) for r in items.values()
    )  # "spec#hash"
    values = [r["judge"].get("value") for r in items.values()]
    lengths = [len(str(r.get("response") or "")) for r in items.values()]
    swaps = _swap_pairs(items)
    return {
        "judges": dict(judges),
        "samples": len(items),
        "judge_failed": sum(1 for r in items.values() if r.get("state") == "judge_failed"),
        "cost": judge_cost(a for r in items.values() for a in _attempts(r)),
        "length_bias": length_bias(values, lengths),
        "position_swap": position_swap(swaps) if swaps else None,
    }


def _version(items: Mapping[Item, Mapping[str, Any]]) -> str:
    versions = sorted({str(r["judge"].get("version")) for r in items.values()})
    return versions[0] if len(versions) == 1 else "+".join(versions)


def _values(items: Mapping[Item, Mapping[str, Any]]) -> dict[str, Any]:
    return {_label(item): r["judge"].get("value") for item, r in items.items()}


def _agreement(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    present = [v for v in (*a.values(), *b.values()) if v is not None]
    if set(present) <= {0, 1}:
        return {"kind": "binary", **binary_agreement(a, b)}
    shared = [k for k in a.keys() & b.keys() if a[k] is not None and b[k] is not None]
    diffs = [abs(float(a[k]) - float(b[k])) for k in shared]
    return {
        "kind": "scored",
        "items": len(shared),
        "exact_agreement": sum(d == 0 for d in diffs) / len(diffs) if diffs else None,
        "mean_abs_difference": sum(diffs) / len(diffs) if diffs else None,
    }


def audit_runs(runs: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """The audit of several runs (name → records): per run, repeats of one judge, pairs of judges."""
    items = {name: judged_items(records) for name, records in runs.items()}
    empty = [name for name, judged in items.items() if not judged]
    judged = {name: its for name, its in items.items() if its}
    by_version: dict[str, list[str]] = defaultdict(list)
    for name, its in judged.items():
        by_version[_version(its)].append(name)
    repeats = {}
    for version, names in by_version.items():
        if len(names) > 1:
            keys = set().union(*(judged[n].keys() for n in names))
            table = {
                _label(key): [(judged[n].get(key) or {}).get("judge", {}).get("value") for n in names]
                for key in sorted(keys, key=lambda k: (k[0], k[1], -1 if k[2] is None else k[2]))
            }
            repeats[version] = {"runs": names, **flip_rate(table)}
    pairs = []
    for (va, na), (vb, nb) in combinations([(v, names[0]) for v, names in by_version.items()], 2):
        pair = {
            "first": na,
            "second": nb,
            "first_version": va,
            "second_version": vb,
            **_agreement(_values(judged[na]), _values(judged[nb])),
        }
        tasks_a, tasks_b = _by_task(judged[na]), _by_task(judged[nb])
        shared = sorted(tasks_a.keys() & tasks_b.keys())
        if len(shared) > 1:
            pair["tasks"] = {t: _agreement(_values(tasks_a[t]), _values(tasks_b[t])) for t in shared}
        pairs.append(pair)
    return {
        "runs": {name: _run_audit(its) for name, its in judged.items()},
        "runs_without_judge": empty,
        "repeats": repeats,
        "agreement": pairs,
    }


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _agreement_line(label: str, pair: Mapping[str, Any]) -> str:
    head = f"Agreement {label}: " if label else ""
    if pair["kind"] == "binary":
        note = f" ({pair['note']})" if pair["note"] else ""
        return (
            f"{head}{_fmt(pair['agreement'])} over {pair['items']} items, Cohen's κ "
            f"{_fmt(pair['kappa'])}{note}."
        )
    return (
        f"{head}exact {_fmt(pair['exact_agreement'])}, mean |Δ| {_fmt(pair['mean_abs_difference'])} over "
        f"{pair['items']} items."
    )


AUDIT_COLUMNS = (
    "run",
    "judge",
    "samples",
    "judge_failed",
    "requests",
    "cached",
    "tokens",
    "judge time, s",
    "length bias (Spearman)",
)


def _tokens(cost: Mapping[str, Any]) -> str:
    """Total tokens; calls that reported no usage are said, never read as 0 tokens."""
    missing = cost.get("calls_without_usage") or 0
    if cost["requests"] and missing == cost["requests"]:
        return "– (not reported)"
    return f"{cost['total_tokens']} (+{missing} calls unreported)" if missing else str(cost["total_tokens"])


def audit_rows(audit: Mapping[str, Any]) -> list[list[str]]:
    """One row per run and per task of a run (cells in ``AUDIT_COLUMNS`` order)."""
    out = []
    for name, run in audit["runs"].items():
        parts = [(name, run), *((f"{name} · {task}", sub) for task, sub in (run.get("tasks") or {}).items())]
        for label, part in parts:
            cost, bias = part["cost"], part["length_bias"]
            out.append(
                [
                    label,
                    ", ".join(part["judges"]),
                    str(part["samples"]),
                    str(part["judge_failed"]),
                    str(cost["requests"]),
                    str(cost["cached"]),
                    _tokens(cost),
                    _fmt(cost["latency_s"], 1),
                    _fmt(bias["spearman"]),
                ]
            )
    return out


def audit_notes(audit: Mapping[str, Any]) -> list[str]:
    """Position swap, repeated judging (flip rate) and judge-vs-judge agreement, one sentence each."""
    lines = []
    for name, run in audit["runs"].items():
        if run["position_swap"]:
            swap = run["position_swap"]
            lines.append(
                f"Position swap ({name}): consistency {_fmt(swap['consistency'])} over {swap['items']} "
                "pairs; "
                f"first slot won both orders {swap['first_slot']}×, second slot {swap['second_slot']}×."
            )
    for version, rep in audit["repeats"].items():
        lines.append(
            f"Repeated judging ({version}, runs {', '.join(rep['runs'])}): flip rate "
            f"{_fmt(rep['flip_rate'])} "
            f"({rep['flipped']} of {rep['items']} items)."
        )
    for pair in audit["agreement"]:
        lines.append(
            _agreement_line(f"{pair['first']} vs {pair['second']}", pair)
            + "".join(
                f"\n- {task}: {_agreement_line('', part)}" for task, part in (pair.get("tasks") or {}).items()
            )
        )
    if audit["runs_without_judge"]:
        lines.append(f"Runs without judge records: {', '.join(audit['runs_without_judge'])}.")
    return lines


def audit_markdown(audit: Mapping[str, Any]) -> str:
    """A "Judge audit" report section: cost, failures and length bias per run; flips; agreement."""
    lines = ["## Judge audit", "", "| " + " | ".join(AUDIT_COLUMNS) + " |", "|" + "---|" * len(AUDIT_COLUMNS)]
    lines += ["| " + " | ".join(row) + " |" for row in audit_rows(audit)]
    for note in audit_notes(audit):
        lines += ["", note]
    return "\n".join(lines) + "\n"
