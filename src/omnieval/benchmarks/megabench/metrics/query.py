"""MEGA-Bench query scoring and the registered ``megabench.*`` metrics.

``megabench.query_score`` takes the parsed response (``inp.prediction``: the ``{field: value}`` dict
the ``megabench`` parser returns, or the whole text for ``dummy``), the gold answer dict
(``inp.targets[0]``) and ``metric_info``/``eval_context`` (``inp.metadata``), scores every field with
its metric, adds ``global_aux_metrics`` on the whole response, and aggregates with field weights
(``mean``) or ``min``, skipping fields that score below 0 ("not applicable"), exactly as the
original evaluator does. It returns ``megabench_score`` (the query score) and one
``megabench.<field>`` value per scored field; a query with no applicable field scores 0 (the
original's -1, which counts as 0 in every task mean) with ``megabench_not_applicable`` = 1.
"""

from __future__ import annotations

import ast
import copy
import logging
import math
from typing import Any

from omnieval.benchmarks.megabench.metrics._convert import evaluate_as_string
from omnieval.benchmarks.megabench.metrics._table import all_names, implementation, kind_of
from omnieval.errors import MetricError
from omnieval.metrics import register_metric
from omnieval.types import ScoringInput

__all__ = [
    "JUDGED_KEY",
    "PARITY_VERSION",
    "QUERY_OUTPUTS",
    "STRICT_VERSION",
    "field_scores",
    "load_mapping",
    "query_score",
    "score_query",
]

PARITY_VERSION = "ee324ab-parity"
"""Scores equal MEGA-Bench's evaluator at commit ee324ab, quirks included."""
STRICT_VERSION = "strict-1"
"""Documented quirks fixed (docs/benchmarks/megabench.md); not comparable with the published leaderboard."""

log = logging.getLogger(__name__)


def load_mapping(value: Any, *, what: str) -> dict[str, Any]:
    """A dict given as a dict or as its Python-literal string (the HF dataset's encoding)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = ast.literal_eval(value) if value.strip() else {}
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise MetricError(f"{what} is not a valid Python dict literal: {exc}") from exc
        if isinstance(parsed, dict):
            return parsed
    raise MetricError(f"{what} must be a dict, got {type(value).__name__}")


def _safe(fn: Any, *args: Any, strict: bool) -> float:
    """Any exception inside a metric scores the field 0, as in the original."""
    try:
        value = float(fn(*args, strict=strict))
    except MetricError:
        raise
    except ImportError as exc:  # a missing optional dependency must not read as a wrong answer
        raise MetricError(
            f"MEGA-Bench metric {getattr(fn, '__name__', fn)} needs {exc.name or exc}: pip install "
            "'omnieval[megabench]'"
        ) from exc
    except Exception as exc:
        log.debug("megabench metric %s failed: %s", getattr(fn, "__name__", fn), exc)
        return 0.0
    return 0.0 if math.isnan(value) else value


def _get(response_obj: Any, field: str) -> Any:
    return response_obj.get(field) if isinstance(response_obj, dict) else response_obj


def _score_one(
    name: str | None, value: Any, gold: Any, whole: Any, context: dict[str, Any], *, strict: bool
) -> float | None:
    kind = kind_of(name)
    if kind in ("not_scored", "judge"):
        return None
    fn = implementation(str(name))
    if kind == "field":
        return _safe(fn, value, evaluate_as_string(gold), strict=strict)
    if kind == "context":
        return _safe(fn, value, context, strict=strict)
    return _safe(fn, whole, context, strict=strict)


def field_scores(
    response_obj: Any,
    gold: dict[str, Any],
    info: dict[str, Any],
    context: dict[str, Any],
    *,
    strict: bool = False,
    judged: dict[str, float] | None = None,
) -> dict[str, float]:
    """Per-field scores (unscored fields left out); negative means "not applicable".

    An LLM-judged field is scored only when ``judged`` holds its verdict (a score in [0, 1]);
    without one it is left out, as no rule can score it.
    """
    table = info.get("field_score_function") or {}
    if not isinstance(table, dict):
        raise MetricError("metric_info['field_score_function'] must be a dict")
    scores: dict[str, float] = {}
    for field, gold_value in gold.items():
        name = table.get(field)
        if kind_of(name) == "judge":
            if judged and field in judged:
                scores[field] = float(judged[field])
            continue
        s = _score_one(name, _get(response_obj, field), gold_value, response_obj, context, strict=strict)
        if s is not None:
            scores[field] = s
    aux = info.get("global_aux_metrics") or {}
    whole = copy.deepcopy(response_obj)
    for field, name in aux.items():
        s = _score_one(name, whole, gold, whole, context, strict=strict)
        if s is not None:
            scores[field] = s
    return scores


def aggregate_fields(scores: dict[str, float], info: dict[str, Any]) -> float:
    """Weighted mean or min over applicable (≥ 0) fields; -1 when none applies."""
    agg = info.get("aggregation") or {}
    function = str(agg.get("function") or "").lower()
    valid = {f: s for f, s in scores.items() if s >= 0}
    if function not in ("mean", "min") or not valid:
        return -1.0
    if function == "min":
        return min(valid.values())
    weights = agg.get("field_weights") or {}
    missing = [f for f in valid if f not in weights]
    if missing:
        raise MetricError(f"metric_info['aggregation']['field_weights'] has no weight for field(s) {missing}")
    total = sum(float(weights[f]) for f in valid)
    if total == 0:
        raise MetricError(f"field weights of the scored fields {sorted(valid)} sum to zero")
    return sum(float(weights[f]) * s for f, s in valid.items()) / total


def score_query(
    response_obj: Any,
    gold: Any,
    info: Any,
    context: Any,
    *,
    strict: bool = False,
    judged: dict[str, float] | None = None,
) -> tuple[float, dict[str, float]]:
    """The original's query score (may be -1) and the per-field scores."""
    gold_map = load_mapping(gold, what="answer")
    info_map = load_mapping(info, what="metric_info")
    context_map = load_mapping(context if context is not None else {}, what="eval_context")
    table = info_map.get("field_score_function") or {}
    if not isinstance(table, dict):
        raise MetricError("metric_info['field_score_function'] must be a dict")
    for name in [*table.values(), *(info_map.get("global_aux_metrics") or {}).values()]:
        kind_of(name)  # an unknown name fails before any field is scored
    scores = field_scores(response_obj, gold_map, info_map, context_map, strict=strict, judged=judged)
    return aggregate_fields(scores, info_map), scores


def _unit(value: float) -> float:
    return min(1.0, max(0.0, value))


def _query_metric(
    inp: ScoringInput, *, strict: bool, metric_info: dict[str, Any] | None = None
) -> dict[str, float]:
    if not inp.targets:
        raise MetricError("MEGA-Bench query scoring needs the gold answer dict in targets[0]")
    meta = inp.metadata
    info = metric_info if metric_info is not None else meta.get("metric_info")
    if info is None:
        raise MetricError(
            "MEGA-Bench query scoring needs metric_info (metric option or metadata['metric_info'])"
        )
    judged = meta.get(JUDGED_KEY) or None
    query, scores = score_query(
        inp.prediction, inp.targets[0], info, meta.get("eval_context"), strict=strict, judged=judged
    )
    out = {
        "megabench_score": _unit(query),
        "megabench_not_applicable": 1.0 if query < 0 else 0.0,
        "megabench_judged": 1.0 if judged and any(f in scores for f in judged) else 0.0,
    }
    out.update({f"megabench.{f}": _unit(s) for f, s in scores.items() if s >= 0})
    return out


QUERY_OUTPUTS = ("megabench_score", "megabench_not_applicable", "megabench_judged")
"""Always reported (0 on a non-ok sample); ``megabench.<field>`` per-field scores come on top."""
JUDGED_KEY = "megabench_judge_scores"
"""Sample metadata key where a judge stage leaves ``{field: score in [0, 1]}`` for LLM-judged fields.
``megabench_judged`` = 1 for a query with at least one such verdict; an Open task with none is not
computed by the ``megabench`` scheme (never averaged in as 0)."""


@register_metric("megabench.query_score", version=PARITY_VERSION, outputs=QUERY_OUTPUTS)
def query_score(
    inp: ScoringInput, /, *, strict: bool = False, metric_info: dict[str, Any] | None = None
) -> dict[str, float]:
    """MEGA-Bench query score from the parsed fields (parity; ``strict=True`` fixes known quirks).

    ``metric_info`` given as an option (a task file's scoring spec) wins over the sample's own.
    """
    return _query_metric(inp, strict=strict, metric_info=metric_info)


@register_metric("megabench.query_score_strict", version=STRICT_VERSION, outputs=QUERY_OUTPUTS)
def query_score_strict(
    inp: ScoringInput, /, *, metric_info: dict[str, Any] | None = None
) -> dict[str, float]:
    """MEGA-Bench query score with the documented quirks fixed (not leaderboard-comparable)."""
    return _query_metric(inp, strict=True, metric_info=metric_info)


def _judged_query_metric(
    inp: ScoringInput, *, strict: bool, judge_key: str, metric_info: dict[str, Any] | None
) -> dict[str, float]:
    if judge_key not in inp.judgements:
        raise MetricError(
            f"no judge value {judge_key!r} for this sample (judged keys: {sorted(inp.judgements)})"
        )
    if not inp.targets:
        raise MetricError("MEGA-Bench query scoring needs the gold answer dict in targets[0]")
    info = load_mapping(
        metric_info if metric_info is not None else inp.metadata.get("metric_info"), what="metric_info"
    )
    fields = [f for f, m in (info.get("field_score_function") or {}).items() if kind_of(m) == "judge"]
    if len(fields) != 1 or any(
        kind_of(m) == "judge" for m in (info.get("global_aux_metrics") or {}).values()
    ):
        raise MetricError(
            "one judge value per sample scores exactly one judge-scored answer field; metric_info has "
            f"{fields}"
        )
    judged = {fields[0]: float(inp.judgements[judge_key])}
    query, scores = score_query(
        inp.prediction, inp.targets[0], info, inp.metadata.get("eval_context"), strict=strict, judged=judged
    )
    out = {
        "megabench_score": _unit(query),
        "megabench_not_applicable": 1.0 if query < 0 else 0.0,
        "megabench_judged": 1.0,
    }
    out.update({f"megabench.{f}": _unit(v) for f, v in scores.items() if v >= 0})
    return out


@register_metric("megabench.query_score_judged", version=PARITY_VERSION)
def query_score_judged(
    inp: ScoringInput, /, *, judge_key: str = "megabench_judge", metric_info: dict[str, Any] | None = None
) -> dict[str, float]:
    """MEGA-Bench query score of an Open task: the judge value (verdict / 10) scores the judge field.

    Rule-scored fields of the same task are scored as usual and aggregated with the task's weights.
    """
    return _judged_query_metric(inp, strict=False, judge_key=judge_key, metric_info=metric_info)


@register_metric("megabench.query_score_judged_strict", version=STRICT_VERSION)
def query_score_judged_strict(
    inp: ScoringInput, /, *, judge_key: str = "megabench_judge", metric_info: dict[str, Any] | None = None
) -> dict[str, float]:
    """MEGA-Bench judged query score with the documented rule-metric quirks fixed."""
    return _judged_query_metric(inp, strict=True, judge_key=judge_key, metric_info=metric_info)


def _register_single(name: str) -> None:
    kind = kind_of(name)
    fn = implementation(name)

    def single(inp: ScoringInput, /, *, strict: bool = False) -> float:
        context = load_mapping(inp.metadata.get("eval_context") or {}, what="eval_context")
        gold = inp.targets[0] if inp.targets else None
        value = inp.prediction if inp.parsed else inp.response
        if kind == "field":
            result = _safe(fn, value, evaluate_as_string(gold), strict=strict)
        else:
            result = _safe(fn, value, context, strict=strict)
        return _unit(result)

    single.__doc__ = f"MEGA-Bench ``{name}`` on one field (prediction vs targets[0]; parity unless strict)."
    register_metric(f"megabench.{name}", version=PARITY_VERSION)(single)


for _name in all_names():
    if kind_of(_name) in ("field", "context", "whole"):
        _register_single(_name)
