"""The ``mera`` leaderboard scheme: per-modality totals, Attempted Score, Coverage, Total, four boards.

Definitions (paper §3.3.4): a modality total is (1/n_m)·Σ FS over the attempted tasks of the modality;
Coverage C = (1/M)·Σ_m k_m/n_m; Total T = A·C. The Attempted Score A has two readings:

* ``weighting="tasks"`` (default): the plain mean of FS over all attempted tasks. This is what the
  paper's Table 6 (the published leaderboard) actually uses, so the default reproduces it.
* ``weighting="modalities"``: equation (2), A = Σ_m (1/n_m)·Σ_i s_mi / Σ_m k_m/n_m.

Single-modality models get the same A under both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from omnieval.aggregate.schemes import register_scheme, typed_results
from omnieval.benchmarks.mera.catalog import MODALITIES, catalogue, find_task
from omnieval.errors import ConfigError
from omnieval.types.files import ResultsFile

__all__ = ["WEIGHTINGS", "fs_sources", "mera_scheme", "score_model", "task_scores_from_results"]

WEIGHTINGS = ("tasks", "modalities")
ROW_KEYS = ("model", "total", "attempted", "coverage", "image", "audio", "video")


def score_model(scores: Mapping[str, float | None], *, weighting: str = "tasks") -> dict[str, Any]:
    """Aggregate FS per task name (``None`` = not scored) into totals; every name must be a MERA task."""
    if weighting not in WEIGHTINGS:
        raise ConfigError(f"mera scheme: weighting must be one of {list(WEIGHTINGS)}, got {weighting!r}")
    tasks = catalogue().by_name()
    unknown = sorted(set(scores) - set(tasks))
    if unknown:
        raise ConfigError(f"mera scheme: unknown task(s) {unknown}")
    out: dict[str, Any] = {"modalities": {}}
    weighted_sum = weighted_cov = 0.0
    attempted: list[float] = []
    for modality in MODALITIES:
        n = catalogue().modalities[modality]
        done = [float(s) for name, s in scores.items() if s is not None and tasks[name].modality == modality]
        k = len(done)
        total = sum(done) / n
        out["modalities"][modality] = {
            "total": total,
            "attempted": sum(done) / k if k else 0.0,
            "coverage": k / n,
            "k": k,
            "n": n,
        }
        weighted_sum += total
        weighted_cov += k / n
        attempted.extend(done)
    coverage = weighted_cov / len(MODALITIES)
    if weighting == "tasks":
        score = sum(attempted) / len(attempted) if attempted else 0.0
    else:
        score = weighted_sum / weighted_cov if weighted_cov else 0.0
    out.update(attempted=score, coverage=coverage, total=score * coverage)
    return out


def _where(result: ResultsFile) -> str:
    return str(result.run_dir or "results.json")


def task_scores_from_results(document: Mapping[str, Any] | ResultsFile) -> dict[str, float | None]:
    """FS per MERA task from one ``results.json`` (``{"model", "tasks": {NAME: {"score": FS}}}``)."""
    result = typed_results(document)
    where = _where(result)
    scores: dict[str, float | None] = {}
    for name, entry in result.tasks.items():
        task = find_task(name)
        if task is None:
            raise ConfigError(f"{where}: task {name!r} is not a MERA Multi task")
        if task.name in scores:
            raise ConfigError(f"{where}: task {task.name!r} appears twice (as {name!r})")
        score = entry.score
        if entry.n_scored == 0 or entry.scored is False or entry.metadata.get("answers_hidden"):
            score = (
                None  # prediction only (hidden answers) or no judge value: not attempted locally, never a 0
            )
        if score is not None and not 0.0 <= score <= 1.0:
            raise ConfigError(
                f"{where}: task {name!r} field 'score' must be a number in [0, 1], got {score!r}"
            )
        scores[task.name] = score
    return scores


def fs_sources(document: Mapping[str, Any] | ResultsFile) -> dict[str, str]:
    """Per task, which FinalScore a ``results.json`` holds: with the judge, EM only, or RuSLUn's own."""
    out: dict[str, str] = {}
    for name, entry in typed_results(document).tasks.items():
        metrics = entry.metrics
        if "intent_em" in metrics:
            out[name] = "(Intent EM + Slot F1)/2"
        elif entry.n_scored and entry.scored is False and entry.judge is not None and entry.judge.judged:
            out[name] = "not computed (judged, but no sample or group has a judge value)"
        elif "group_js" in metrics:
            out[name] = "(Group EM + Group JS)/2"
        elif "js" in metrics:
            out[name] = "(EM + JS)/2"
        else:
            out[name] = "EM (no judge: JS not computed)"
    return out


def _model(result: ResultsFile) -> str:
    return str(result.model or result.run_dir or "?")


def _row(model: str, agg: Mapping[str, Any]) -> dict[str, Any]:
    mods = agg["modalities"]
    values = {"total": agg["total"], "attempted": agg["attempted"], "coverage": agg["coverage"]}
    values |= {m: mods[m]["total"] for m in MODALITIES}
    return {"model": model} | {k: round(v, 6) for k, v in values.items()}


def _boards(models: Sequence[tuple[str, Mapping[str, Any]]], hb: Mapping[str, Any]) -> dict[str, Any]:
    boards: dict[str, Any] = {}
    for m in MODALITIES:
        entries = [
            {
                "model": name,
                "score": round(a["modalities"][m]["total"], 6),
                "attempted": round(a["modalities"][m]["attempted"], 6),
                "coverage": round(a["modalities"][m]["coverage"], 6),
            }
            for name, a in models
            if a["modalities"][m]["k"] > 0
        ]
        entries.sort(key=lambda e: -e["score"])
        boards[m] = {"rows": entries, "human_baseline": round(hb["modalities"][m]["total"], 6)}
    multi = sorted((_row(name, a) for name, a in models), key=lambda r: -r["total"])
    boards["multi"] = {"rows": multi, "human_baseline": _row("Human Baseline", hb)}
    return boards


def _per_model(
    results: Sequence[ResultsFile], *, merge: bool
) -> list[tuple[str, list[str], dict[str, float | None]]]:
    """``(model, run dirs, scores)`` per run, or per model when ``merge`` joins a model's runs."""
    out: list[tuple[str, list[str], dict[str, float | None]]] = []
    index: dict[str, int] = {}
    for result in results:
        scores = task_scores_from_results(result)
        model = _model(result)
        run_dir = _where(result)
        if merge and model in index:
            _, dirs, merged = out[index[model]]
            twice = sorted(set(merged) & set(scores))
            if twice:
                raise ConfigError(
                    f"mera scheme: model {model!r} has task(s) {twice} in both {dirs} and {run_dir}"
                )
            dirs.append(run_dir)
            merged.update(scores)
            continue
        index[model] = len(out)
        out.append((model, [run_dir], dict(scores)))
    return out


@register_scheme("mera")
def mera_scheme(
    results: Sequence[Mapping[str, Any] | ResultsFile],
    /,
    *,
    weighting: str | None = None,
    merge: bool = False,
) -> dict[str, Any]:
    """One row per run (``model``, ``total``, ``attempted``, ``coverage``, ``image``, ``audio``, ``video``)
    plus the image/audio/video/multi boards with human-baseline rows. ``merge`` joins the runs of one
    model (e.g. an image run and an audio run) into one row."""
    weighting = weighting or "tasks"
    models: list[tuple[str, dict[str, Any]]] = []
    details = []
    used: dict[str, dict[str, str]] = {}
    typed = [typed_results(result) for result in results]
    for result in typed:
        found = {find_task(n).name: v for n, v in fs_sources(result).items() if find_task(n) is not None}  # type: ignore[union-attr]
        used.setdefault(_model(result), {}).update(found)
    for model, dirs, scores in _per_model(typed, merge=merge):
        models.append((model, score_model(scores, weighting=weighting)))
        details.append(
            {
                "model": model,
                "run_dirs": dirs,
                "unscored": sorted(n for n, s in scores.items() if s is None),
                "attempted_tasks": sorted(n for n, s in scores.items() if s is not None),
                "fs_used": {n: used.get(model, {}).get(n, "?") for n in sorted(scores)},
            }
        )
    hb = score_model({t.name: t.human_baseline for t in catalogue().tasks}, weighting=weighting)
    rows = [_row(name, agg) for name, agg in models]
    rows.sort(key=lambda r: -r["total"])
    return {
        "scheme": "mera",
        "title": f"MERA Multi (Attempted Score weighting: {weighting})",
        "weighting": weighting,
        "rows": rows,
        "boards": _boards(models, hb),
        "details": details,
    }
