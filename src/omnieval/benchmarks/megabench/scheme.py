"""The ``megabench`` leaderboard scheme: Core / Open / Overall and keyword breakdowns.

Task score = mean query score (``results.json`` ``tasks[NAME].score``). Core and Open are macro
means over their tasks; per model, Core is the better of its CoT and non-CoT runs (option
``variant=best|cot|no_cot``). Overall is the task-count-weighted mean
``(n_core·Core + n_open·Open) / (n_core + n_open)``, i.e. ``(440·Core + 65·Open) / 505`` for the full
benchmark. Keyword breakdowns average task scores per keyword value over the chosen Core tasks and
the Open tasks, with task and sample counts. Each task's ``metadata.megabench`` (written by the
importer) says its set, whether it ran with CoT, and its keywords.

An Open task none of whose queries was judged (``metrics.megabench_judged`` = 0: no judge verdict
reached the query metric) is *not computed*: it is left out of Open and of the keyword breakdown,
listed in ``open_not_computed``, and the row says ``overall_partial: true`` (Overall then covers Core
and the computed Open tasks only). It is never averaged in as 0. Once a judge fills the judged
fields, the same tasks are computed normally.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from omnieval.aggregate.schemes import register_scheme, typed_results
from omnieval.errors import ConfigError
from omnieval.types.files import ResultsFile, TaskResults

__all__ = ["DIMENSIONS", "FULL_CORE", "FULL_OPEN", "judged", "megabench_board", "overall"]

FULL_CORE, FULL_OPEN = 440, 65
DIMENSIONS = ("skills", "input_format", "output_format", "app", "num_input")


def overall(core: float | None, n_core: int, open_: float | None, n_open: int) -> float | None:
    """Task-count-weighted mean of the Core and Open scores (either may be missing)."""
    parts = [(core, n_core), (open_, n_open)]
    present = [(s, n) for s, n in parts if s is not None and n > 0]
    if not present:
        return None
    return sum(s * n for s, n in present) / sum(n for _, n in present)


def judged(block: TaskResults) -> bool:
    """At least one query of the task carried a judge verdict (an Open task's score means something)."""
    return float(block.metrics.get("megabench_judged", 0.0)) > 0.0


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _run_cot(blocks: list[TaskResults]) -> bool:
    """A run's prompt mode: CoT when its tasks say so (tasks without a demo carry no flag)."""
    flags = {(b.metadata.get("megabench") or {}).get("cot") for b in blocks}
    return True in flags and False not in flags


def _collect(
    results: Sequence[Mapping[str, Any] | ResultsFile],
) -> dict[str, dict[str, dict[str, dict[str, Any]]]]:
    """``model → bucket (core_cot / core_no_cot / open) → task → block``."""
    models: dict[str, dict[str, dict[str, dict[str, Any]]]] = defaultdict(lambda: defaultdict(dict))
    for doc in results:
        result = typed_results(doc)
        model = str(result.model or result.run_dir or "?")
        tasks = result.tasks
        run_cot = _run_cot(list(tasks.values()))
        for name, block in tasks.items():
            info = block.metadata.get("megabench") or {}
            if not info:
                continue
            cot = info.get("cot") if info.get("cot") is not None else run_cot
            bucket = "open" if info.get("set") == "open" else ("core_cot" if cot else "core_no_cot")
            if bucket == "open" and not judged(block):
                bucket = "open_not_computed"
            score = block.score if block.score is not None else 0.0  # unscored counts 0, as it always did
            models[model][bucket][name] = {"score": score, "n": block.n, "_info": info}
    return models


def _breakdown(blocks: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    stats: dict[str, dict[str, dict[str, float]]] = {}
    for dim in DIMENSIONS:
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for block in blocks:
            value = block["_info"].get(dim)
            for key in value if isinstance(value, list) else [value]:
                if key:
                    groups[str(key)].append(block)
        stats[dim] = {
            key: {
                "count": len(members),
                "num_samples": sum(int(b.get("n", 0)) for b in members),
                "average_score": sum(float(b.get("score", 0.0)) for b in members) / len(members),
            }
            for key, members in sorted(groups.items())
        }
    return stats


def _choose_core(
    buckets: dict[str, dict[str, dict[str, Any]]], variant: str
) -> tuple[str | None, dict[str, dict[str, Any]]]:
    scores = {
        b: _mean([float(x.get("score", 0.0)) for x in buckets.get(b, {}).values()])
        for b in ("core_cot", "core_no_cot")
    }
    if variant in ("cot", "no_cot"):
        chosen = f"core_{variant}"
        return (chosen if buckets.get(chosen) else None), dict(buckets.get(chosen, {}))
    available = [b for b in ("core_cot", "core_no_cot") if scores[b] is not None]
    if not available:
        return None, {}
    best = max(available, key=lambda b: scores[b] or 0.0)
    return best, dict(buckets[best])


def _model_row(model: str, buckets: dict[str, dict[str, dict[str, Any]]], variant: str) -> dict[str, Any]:
    chosen, core_tasks = _choose_core(buckets, variant)
    open_tasks = dict(buckets.get("open", {}))
    core = _mean([float(b.get("score", 0.0)) for b in core_tasks.values()])
    open_ = _mean([float(b.get("score", 0.0)) for b in open_tasks.values()])
    n_core, n_open = len(core_tasks), len(open_tasks)
    n_queries = sum(int(b.get("n", 0)) for b in [*core_tasks.values(), *open_tasks.values()])
    total = sum(
        float(b.get("score", 0.0)) * int(b.get("n", 0)) for b in [*core_tasks.values(), *open_tasks.values()]
    )
    return {
        "model": model,
        "overall": overall(core, n_core, open_, n_open),
        "core": core,
        "core_cot": _mean([float(b.get("score", 0.0)) for b in buckets.get("core_cot", {}).values()]),
        "core_no_cot": _mean([float(b.get("score", 0.0)) for b in buckets.get("core_no_cot", {}).values()]),
        "core_variant": chosen,
        "open": open_,
        "n_core_tasks": n_core,
        "n_open_tasks": n_open,
        "open_not_computed": sorted(buckets.get("open_not_computed", {})),
        "overall_partial": bool(buckets.get("open_not_computed")),
        "full_benchmark": n_core == FULL_CORE and n_open == FULL_OPEN,
        "micro_mean": total / n_queries if n_queries else None,
    }


def _model_keywords(
    buckets: dict[str, dict[str, dict[str, Any]]], variant: str
) -> dict[str, dict[str, dict[str, float]]]:
    _, core_tasks = _choose_core(buckets, variant)
    return _breakdown([*core_tasks.values(), *buckets.get("open", {}).values()])


@register_scheme("megabench")
def megabench_board(results: Sequence[dict[str, Any]], /, *, variant: str = "best") -> dict[str, Any]:
    """MEGA-Bench leaderboard rows (scores in [0, 1]; the paper prints them ×100)."""
    if variant not in ("best", "cot", "no_cot"):
        raise ConfigError(f"megabench scheme: variant must be best, cot or no_cot, got {variant!r}")
    models = _collect(results)
    rows = [_model_row(model, buckets, variant) for model, buckets in models.items()]
    rows.sort(key=lambda r: -(r["overall"] if r["overall"] is not None else -1.0))
    return {
        "scheme": "megabench",
        "formula": "overall = (n_core*core + n_open*open) / (n_core + n_open); full benchmark: (440*core + "
        "65*open) / 505",
        "columns": [
            "model",
            "overall",
            "core",
            "core_cot",
            "core_no_cot",
            "open",
            "n_core_tasks",
            "n_open_tasks",
            "overall_partial",
        ],
        "rows": rows,
        "keyword_stats": {model: _model_keywords(buckets, variant) for model, buckets in models.items()},
    }
