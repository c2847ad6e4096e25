"""MERA-specific metrics: RuSLUn intent EM / slot F1 and the per-sample FinalScore (FS).

FS = (EM + JS)/2. In a judged run (``--judge``) ``mera_fs`` sees the judge value ``js``; without a
judge JS is not computed, FS is EM and the results' ``judge`` block says so.

RuSLUn parity (``mera_ruslun``) follows MERA_MULTIMODAL's released chain (``ruslun.yaml``: the
``lowercase`` filter, then ``ruslunscoring`` = ``clean_json_text``; ``utils.py process_results``),
quirks included: only the prediction is lower-cased, so a CamelCase gold intent (``RateBook``) never
matches; a fenced block only unwraps when it is the whole answer; values are compared unstripped;
a missing intent scores intent 0 with slot F1 still computed; a null slot value is the string
``"None"``. ``mera_ruslun_strict`` (``--strict-metrics``) is the fixed reading: case-folded on both
sides, JSON found inside fences, after ``json`` or after the ANSWER marker, values stripped, a JSON
without a string intent scoring 0 on both.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from typing import Any

from omnieval.benchmarks.mera.em import leniency_metric, score_em
from omnieval.errors import MetricError
from omnieval.metrics import register_metric
from omnieval.textkit.marker import with_marker_tail
from omnieval.types import ScoringInput

__all__ = [
    "RUSLUN_KEYS",
    "clean_json_answer",
    "mera_ruslun",
    "mera_ruslun_strict",
    "parse_slu",
    "released_clean_json",
    "released_ruslun_scores",
    "ruslun_scores",
    "slot_f1",
]

_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)\s*```", re.DOTALL)
_JSON_PREFIX = re.compile(r"^json\s*:?\s*", re.IGNORECASE)
_WHOLE_FENCE = re.compile(r"^```(?:\w+)?\s*(.*)\s*```$", re.DOTALL)
_RELEASED_PREFIX = re.compile(r"(?i)^\s*json\s*[:\n\r]\s*")


def released_clean_json(text: str) -> str:
    """MERA's ``clean_json_text`` rules: a fence unwraps only when it spans the whole answer, then one pair
    of backticks, a ``json:``/``json⏎`` prefix, and outer quotes (unescaped as a Python literal)."""
    text = text.strip()
    fence = _WHOLE_FENCE.match(text)
    if fence:
        text = fence.group(1).strip()
    if text.startswith("`") and text.endswith("`"):
        text = text[1:-1].strip()
    text = _RELEASED_PREFIX.sub("", text, count=1)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        try:
            text = str(ast.literal_eval(text))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            text = text[1:-1]
    return text.strip()


def _released_pairs(data: dict[str, Any], *, drop_null: bool = False) -> Counter[tuple[str, str]] | None:
    """``str(key), str(value)`` of every slot, as ``process_results`` counts them (``None`` → ``"None"``).

    ``None`` where MERA's code would raise (slots not a list of objects). ``drop_null`` drops the null
    keys Arrow adds when a gold slot list was stored as structs.
    """
    slots = data.get("slots", []) or []
    if not isinstance(slots, list) or not all(isinstance(slot, dict) for slot in slots):
        return None
    return Counter(
        (str(k), str(v)) for slot in slots for k, v in slot.items() if not (drop_null and v is None)
    )


def _released_gold(gold: str | dict[str, Any]) -> tuple[Any, Counter[tuple[str, str]]]:
    data = gold if isinstance(gold, dict) else None
    if isinstance(gold, str):
        try:
            data = json.loads(gold.replace("'", '"'))  # as process_results reads ``doc["outputs"]``
        except json.JSONDecodeError:
            data = None
    pairs = _released_pairs(data, drop_null=not isinstance(gold, str)) if isinstance(data, dict) else None
    if data is None or pairs is None:
        raise MetricError(f"metric 'mera_ruslun': gold answer is not RuSLUn JSON: {str(gold)[:120]!r}")
    return data.get("intent"), pairs


def released_ruslun_scores(response: str, gold: str | dict[str, Any]) -> dict[str, float]:
    """``em``, ``intent_em``, ``slot_f1``, ``fs`` under MERA's released chain (lower-cased prediction only).

    A prediction MERA's code would crash on (JSON that is no object, slots that are no list of objects)
    scores 0 on all keys here.
    """
    intent, gold_pairs = _released_gold(gold)
    try:
        pred = json.loads(released_clean_json(response.lower()))
    except (json.JSONDecodeError, RecursionError):
        pred = None
    pairs = _released_pairs(pred) if isinstance(pred, dict) else None
    if not isinstance(pred, dict) or pairs is None:
        return {"em": 0.0, "intent_em": 0.0, "slot_f1": 0.0, "fs": 0.0}
    right = float(pred.get("intent") == intent)
    f1 = slot_f1(pairs, gold_pairs)
    em = float(right == 1.0 and pairs == gold_pairs)
    return {"em": em, "intent_em": right, "slot_f1": f1, "fs": (right + f1) / 2}


def clean_json_answer(text: str) -> str:
    """RuSLUn cleaning: lowercase, drop code fences, backticks, a ``json:`` prefix and outer quotes."""
    text = text.strip().lower()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    text = _JSON_PREFIX.sub("", text.replace("`", "").strip()).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        try:
            inner = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            inner = None
        if isinstance(inner, str):
            text = inner.strip()
    return text


def parse_slu(text: str) -> tuple[str, Counter[tuple[str, str]]] | None:
    """``(intent, slot multiset)`` from a cleaned answer; ``None`` when it is not the expected JSON."""
    try:
        data = json.loads(clean_json_answer(text))
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("intent"), str):
        return None
    raw = data.get("slots") or []
    pairs: list[tuple[str, str]] = []
    items = [raw] if isinstance(raw, dict) else raw if isinstance(raw, list) else None
    if items is None:
        return None
    for item in items:
        if not isinstance(item, dict):
            return None
        # Arrow stores a list of one-key dicts as structs with every key, absent ones null
        pairs.extend((str(k).strip(), str(v).strip()) for k, v in item.items() if v is not None)
    return data["intent"].strip(), Counter(pairs)


def slot_f1(pred: Counter[tuple[str, str]], gold: Counter[tuple[str, str]]) -> float:
    """F1 of two (slot type, value) multisets; 1.0 when both are empty."""
    if not pred and not gold:
        return 1.0
    hit = sum((pred & gold).values())
    if hit == 0:
        return 0.0
    precision, recall = hit / sum(pred.values()), hit / sum(gold.values())
    return 2 * precision * recall / (precision + recall)


def ruslun_scores(response: str, gold_text: str) -> dict[str, float]:
    """``em``, ``intent_em``, ``slot_f1`` and ``fs`` for one answer (best of full text / text after
    ANSWER)."""
    gold = parse_slu(gold_text)
    if gold is None:
        raise MetricError(f"metric 'mera_ruslun': gold answer is not RuSLUn JSON: {gold_text[:120]!r}")
    best = {"em": 0.0, "intent_em": 0.0, "slot_f1": 0.0, "fs": 0.0}
    for candidate in with_marker_tail(response):
        pred = parse_slu(candidate)
        if pred is None:
            continue
        intent = float(pred[0] == gold[0])
        f1 = slot_f1(pred[1], gold[1])
        scores = {"em": float(intent == 1.0 and pred[1] == gold[1]), "intent_em": intent, "slot_f1": f1}
        scores["fs"] = (intent + f1) / 2
        if scores["fs"] > best["fs"] or (scores["fs"] == best["fs"] and scores["em"] > best["em"]):
            best = scores
    return best


RUSLUN_KEYS = ("em", "intent_em", "slot_f1", "fs")


def _ruslun_gold(inp: ScoringInput, metric: str) -> Any:
    golds = [t for t in inp.targets if t not in (None, "")]
    if not golds:
        raise MetricError(f"metric {metric!r}: the sample has no gold answer")
    return golds[0]


@register_metric("mera_ruslun", version="3", outputs=RUSLUN_KEYS)
def mera_ruslun(inp: ScoringInput, /) -> dict[str, float]:
    """RuSLUn as MERA's released code scores it: ``em`` (intent and slots), ``intent_em``, ``slot_f1`` and
    ``fs`` = (intent EM + slot F1)/2. Quirk kept: the prediction is lower-cased, the gold is not.

    One metric with declared outputs: a sample in a non-ok state gets 0 under all four keys.
    """
    gold = _ruslun_gold(inp, "mera_ruslun")
    return released_ruslun_scores(inp.response, gold if isinstance(gold, str | dict) else str(gold))


@register_metric("mera_ruslun_strict", version="strict-1", outputs=RUSLUN_KEYS)
def mera_ruslun_strict(inp: ScoringInput, /) -> dict[str, float]:
    """RuSLUn, fixed: both sides case-folded and stripped, JSON found around fences and after the marker."""
    gold = _ruslun_gold(inp, "mera_ruslun_strict")
    text = gold if isinstance(gold, str) else json.dumps(gold, ensure_ascii=False)
    return ruslun_scores(inp.response, text)


def _fs(inp: ScoringInput, *, strict: bool, options: dict[str, Any]) -> float:
    """(EM + JS)/2 when the run judged the sample (``inp.judgements["js"]``); EM when it has no judge."""
    em = score_em(inp, strict=strict, options=options)
    js = inp.judgements.get("js")
    return em if js is None else (em + js) / 2


mera_fs = leniency_metric(
    "mera_fs",
    version="4",
    strict=False,
    score=_fs,
    doc=(
        "MERA FinalScore (EM + JS)/2 with parity EM; in a run without a judge JS is not computed and FS = EM."
    ),
)
mera_fs_strict = leniency_metric(
    "mera_fs_strict",
    version="strict-2",
    strict=True,
    score=_fs,
    doc="MERA FinalScore with the fixed EM of ``mera_em_strict``.",
)


def judge_note() -> dict[str, Any]:
    """Task metadata that says how FS is computed."""
    return {"fs": "(EM + JS) / 2 when the run has a judge (--judge); EM when it has none (JS not computed)"}
