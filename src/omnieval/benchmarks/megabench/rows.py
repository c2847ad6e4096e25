"""One MEGA-Bench dataset row → one :class:`Sample` (validated, media resolved, oracle answer).

Rows follow the ``TIGER-Lab/MEGA-Bench`` schema; ``answer``, ``metric_info``, ``eval_context`` and
the media lists are Python-literal strings. Every problem raises :class:`SourceError` naming the
file, the row id and the field.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omnieval.benchmarks.megabench.metrics._convert import str_to_iterable
from omnieval.benchmarks.megabench.metrics._table import kind_of
from omnieval.benchmarks.megabench.parser import PARSE_FUNCTIONS, answer_fields
from omnieval.errors import MetricError, SourceError
from omnieval.types import MediaKind, MediaRef, Sample

__all__ = ["REQUIRED", "TASK_FIELDS", "RowContext", "oracle_answer", "row_to_sample"]

REQUIRED = (
    "id",
    "task_name",
    "task_description",
    "global_media",
    "example_text",
    "example_media",
    "query_text",
    "query_media",
    "answer",
    "metric_info",
    "eval_context",
)
TASK_FIELDS = ("task_description", "global_media", "example_text", "example_media", "metric_info")
"""Fields that must be identical across one task's rows (the original raises otherwise)."""
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpeg", ".mpg", ".flv", ".wmv")
_PLACEHOLDER = re.compile(r"<image>|<video>")


@dataclass(frozen=True)
class RowContext:
    """Where rows come from, for error messages and media paths."""

    path: str
    media_root: Path
    check_media: bool = True


def _literal(row: dict[str, Any], field: str, ctx: RowContext, *, kind: type) -> Any:
    value = row.get(field)
    if isinstance(value, kind):
        return value
    if value is None or (isinstance(value, str) and not value.strip()):
        return kind()
    if not isinstance(value, str):
        raise SourceError(
            f"expected a {kind.__name__} or its string form, got {type(value).__name__}",
            path=ctx.path,
            sample_id=str(row.get("id")),
            field=field,
        )
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise SourceError(
            f"not a valid Python literal ({type(exc).__name__}: {exc})",
            path=ctx.path,
            sample_id=str(row.get("id")),
            field=field,
        ) from None
    if kind is list and isinstance(parsed, tuple):
        parsed = list(parsed)
    if not isinstance(parsed, kind):
        raise SourceError(
            f"expected a {kind.__name__}, got {type(parsed).__name__}",
            path=ctx.path,
            sample_id=str(row.get("id")),
            field=field,
        )
    return parsed


def _check_metric_info(info: dict[str, Any], gold: dict[str, Any], ctx: RowContext, sid: str) -> None:
    def fail(message: str) -> SourceError:
        return SourceError(message, path=ctx.path, sample_id=sid, field="metric_info")

    table = info.get("field_score_function")
    if not isinstance(table, dict):
        raise fail("'field_score_function' must be a dict of answer field → metric name")
    try:
        for name in [*table.values(), *(info.get("global_aux_metrics") or {}).values()]:
            kind_of(name)
    except MetricError as exc:
        raise fail(str(exc)) from None
    mode = str(info.get("response_parse_function")).lower()
    if mode not in (*PARSE_FUNCTIONS, "unsupported", "none"):
        raise fail(f"unknown response_parse_function {mode!r}; known: {PARSE_FUNCTIONS}")
    if mode in PARSE_FUNCTIONS[:3] and len(answer_fields(gold)) != 1:
        raise fail(f"{mode} needs exactly one answer field, the answer has {answer_fields(gold)}")
    agg = info.get("aggregation")
    if not isinstance(agg, dict) or str(agg.get("function", "")).lower() not in ("mean", "min"):
        raise fail("'aggregation' must be {'function': 'mean' | 'min', 'field_weights': {...}}")
    weights = agg.get("field_weights") or {}
    if not isinstance(weights, dict) or not all(isinstance(w, (int, float)) for w in weights.values()):
        raise fail("'aggregation.field_weights' must map fields to numbers")


def _media(paths: list[Any], text: str, field: str, ctx: RowContext, sid: str, start: int) -> list[MediaRef]:
    count = len(_PLACEHOLDER.findall(text))
    if count != len(paths):
        raise SourceError(
            f"{count} <image>/<video> placeholder(s) but {len(paths)} media path(s)",
            path=ctx.path,
            sample_id=sid,
            field=field,
        )
    refs = []
    for i, raw in enumerate(paths):
        file = Path(str(raw))
        file = file if file.is_absolute() else ctx.media_root / file
        if ctx.check_media and not file.is_file():
            raise SourceError(f"media file not found: {file}", path=ctx.path, sample_id=sid, field=field)
        kind: MediaKind = "video" if file.suffix.lower() in VIDEO_SUFFIXES else "image"
        refs.append(MediaRef(kind=kind, name=f"{kind}_{start + i}", path=str(file)))
    return refs


def _first_reference(value: Any, metric: str) -> Any:
    """``multi_ref_phrase`` golds list acceptable phrases; a perfect answer gives the first one."""
    if "multi_ref" not in metric:
        return value
    refs = str_to_iterable(list, str(value).replace("，", ","))
    return refs[0] if refs else value


def oracle_answer(gold: dict[str, Any], info: dict[str, Any]) -> str:
    """The response a perfect model writes, such that parsing it gives back the gold answer.

    Single-field: ``Answer: <value>`` (``Answer:<value>`` for the whitespace-keeping modes); JSON:
    ``Answer: <Python dict>`` on one line; ``multi_ref_phrase`` fields give their first reference;
    ``dummy`` (reference-free constraints) has no gold text to give.
    """
    mode = str(info.get("response_parse_function")).lower()
    fields = answer_fields(gold)
    table = info.get("field_score_function") or {}
    if mode == "dummy" or not fields:
        return ""
    values = {k: _first_reference(gold[k], str(table.get(k, ""))) for k in fields}
    if mode in PARSE_FUNCTIONS[:3]:
        separator = " " if mode == "answer_string" else ""
        return f"Answer:{separator}{values[fields[0]]}"
    return "Answer: " + repr(values)


def row_to_sample(row: dict[str, Any], ctx: RowContext) -> Sample:
    """Validate one row and build its sample (gold answer dict in ``targets[0]``)."""
    missing = [f for f in REQUIRED if f not in row]
    sid = str(row.get("id"))
    if missing:
        raise SourceError(f"missing field(s) {missing}", path=ctx.path, sample_id=sid, field=missing[0])
    try:  # the original round-trips answers through JSON: tuples become lists, int keys strings
        gold = json.loads(json.dumps(_literal(row, "answer", ctx, kind=dict)))
    except (TypeError, ValueError) as exc:
        raise SourceError(
            f"answer is not JSON-serialisable ({exc})", path=ctx.path, sample_id=sid, field="answer"
        ) from None
    info = _literal(row, "metric_info", ctx, kind=dict)
    context = _literal(row, "eval_context", ctx, kind=dict)
    _check_metric_info(info, gold, ctx, sid)
    texts = {f: str(row.get(f) or "") for f in ("task_description", "example_text", "query_text")}
    media: list[MediaRef] = []
    counts = []
    for text_field, media_field in (
        ("task_description", "global_media"),
        ("example_text", "example_media"),
        ("query_text", "query_media"),
    ):
        refs = _media(
            _literal(row, media_field, ctx, kind=list), texts[text_field], media_field, ctx, sid, len(media)
        )
        media.extend(refs)
        counts.append(len(refs))
    return Sample(
        id=sid,
        input=texts["query_text"],
        fields=texts,
        targets=(gold,),
        media=tuple(media),
        metadata={
            "metric_info": info,
            "eval_context": context,
            "megabench_media_counts": counts,
            "megabench_oracle": oracle_answer(gold, info),
        },
    )
