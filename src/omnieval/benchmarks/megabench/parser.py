"""The ``megabench`` response parser: MEGA-Bench's per-task parse function, by name.

The task's ``metric_info["response_parse_function"]`` (carried in ``Sample.metadata``) picks the
mode; the gold answer dict (``Sample.targets[0]``) names the answer fields. The value handed to the
metric is what the original evaluator calls ``response_obj``: a ``{field: value}`` dict, or the
whole stripped text for ``dummy``. A JSON answer that cannot be read is not a failure in MEGA-Bench:
the raw response becomes every field's value, reported as ``how="fallback:raw_response"``.
"""

from __future__ import annotations

import re
from typing import Any

from omnieval.benchmarks.megabench.metrics._convert import evaluate_as_string, fenced_block, parse_json
from omnieval.benchmarks.megabench.metrics.query import load_mapping
from omnieval.errors import MetricError, ParseError
from omnieval.parsers import register_parser
from omnieval.parsers.mega.answer import drop_additional_text, extract_answer_content
from omnieval.types import Parsed, ParseOutcome, Sample

__all__ = ["PARSE_FUNCTIONS", "answer_fields", "parse_answer_string", "parse_megabench"]

PARSE_FUNCTIONS = ("answer_string", "ascii_answer_string", "verbatim_answer_string", "json", "dummy")
_SINGLE_FIELD = PARSE_FUNCTIONS[:3]
_STRICT_MARKER = re.compile(r"\*\*\s*answer\s*:\s*\*\*|answer\s*:", re.IGNORECASE)


def answer_fields(gold: dict[str, Any]) -> list[str]:
    """Answer fields in gold order; ``##``-prefixed fields are reference-free, not answers."""
    return [k for k in gold if not str(k).startswith("##")]


def _strict_normalise(text: str) -> str:
    """Strict mode: ``ANSWER:`` and ``**Answer:** X`` count as the marker too."""
    return _STRICT_MARKER.sub("Answer:", text)


def parse_answer_string(text: str, *, mode: str, single_line_gold: bool) -> str:
    """One answer field as MEGA-Bench extracts it (always a string)."""
    keep = mode != "answer_string"
    trim = mode != "verbatim_answer_string"
    content = extract_answer_content(text, keep_spacing=keep, trim=trim)
    if keep and (not content.strip() or len(content) > 10000):
        content = content.rstrip()
    content, is_code = fenced_block(content, keep_spacing=keep, trim=trim)
    if not is_code and single_line_gold and not keep:
        content = drop_additional_text(content)
    if content.startswith(("{", "[")):
        obj = parse_json(content)
        if obj == {} and "{}" not in content:
            return content
        if obj == [] and "[]" not in content:
            return content
        return str(obj)
    result = evaluate_as_string(content)
    return result if isinstance(result, str) else content


def _mapping(value: Any, *, what: str, sample: Sample) -> dict[str, Any]:
    """A dict given as itself or as its Python-literal string (as in the HF dataset)."""
    try:
        return load_mapping(value, what=what)
    except MetricError as exc:
        raise ParseError(f"sample {sample.id!r}: {exc}") from None


def _parse_json_mode(text: str, gold: dict[str, Any]) -> ParseOutcome:
    obj = parse_json(text)
    if isinstance(obj, dict) and obj:
        return Parsed(value={k: evaluate_as_string(v) for k, v in obj.items()}, how="json")
    return Parsed(value=dict.fromkeys(gold, text), how="fallback:raw_response")


@register_parser("megabench")
def parse_megabench(
    text: str, sample: Sample, /, *, strict: bool = False, metric_info: dict[str, Any] | None = None
) -> ParseOutcome:
    """Parse a response with the task's MEGA-Bench parse function (parity; ``strict`` opt-in).

    ``metric_info`` given as an option (a task file's scoring spec) wins over the sample's own.
    """
    info = _mapping(
        metric_info if metric_info is not None else sample.metadata.get("metric_info") or {},
        what="metric_info",
        sample=sample,
    )
    raw_mode = info.get("response_parse_function")
    mode = raw_mode.lower() if isinstance(raw_mode, str) else raw_mode
    gold = _mapping(sample.targets[0] if sample.targets else None, what="gold answer", sample=sample)
    text = text or ""
    if strict:
        text = _strict_normalise(text)
    if mode in _SINGLE_FIELD:
        fields = answer_fields(gold)
        if len(fields) != 1:
            raise ParseError(f"sample {sample.id!r}: {mode} needs exactly one answer field, got {fields}")
        key = fields[0]
        single_line = "\n" not in gold[key] if isinstance(gold[key], str) else True
        value = parse_answer_string(text, mode=str(mode), single_line_gold=single_line)
        return Parsed(value={key: value}, how=str(mode))
    if mode == "dummy":
        return Parsed(value=text.strip(), how="dummy")
    if mode in ("json", "unsupported", None):  # the original's default parser is JSON
        return _parse_json_mode(text, gold)
    raise ParseError(
        f"sample {sample.id!r}: unknown MEGA-Bench response_parse_function {mode!r}; known: {PARSE_FUNCTIONS}"
    )
