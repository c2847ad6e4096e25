"""MERA-specific metrics: RuSLUn intent EM / slot F1 and the per-sample FinalScore (FS).

FS = (EM + JS)/2. In a judged run (``--judge``) ``mera_fs`` sees the judge value ``js``; without a
judge JS is not computed, FS is EM and the results' ``judge`` block says so.
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

__all__ = ["RUSLUN_KEYS", "clean_json_answer", "mera_ruslun", "parse_slu", "ruslun_scores", "slot_f1"]

_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)\s*```", re.DOTALL)
_JSON_PREFIX = re.compile(r"^json\s*:?\s*", re.IGNORECASE)


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
    """``em``, ``intent_em``, ``slot_f1`` and ``fs`` for one answer (best of full text / text after ANSWER)."""
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


@register_metric("mera_ruslun", version="2", outputs=RUSLUN_KEYS)
def mera_ruslun(inp: ScoringInput, /) -> dict[str, float]:
    """RuSLUn: ``em`` (intent and slots), ``intent_em``, ``slot_f1`` and ``fs`` = (intent EM + slot F1)/2.

    One metric with declared outputs: a sample in a non-ok state gets 0 under all four keys.
    """
    golds = [t for t in inp.targets if t not in (None, "")]
    if not golds:
        raise MetricError("metric 'mera_ruslun': the sample has no gold answer")
    gold = golds[0] if isinstance(golds[0], str) else json.dumps(golds[0], ensure_ascii=False)
    return ruslun_scores(inp.response, gold)


def _fs(inp: ScoringInput, *, strict: bool, options: dict[str, Any]) -> float:
    """(EM + JS)/2 when the run judged the sample (``inp.judgements["js"]``); EM when it has no judge."""
    em = score_em(inp, strict=strict, options=options)
    js = inp.judgements.get("js")
    return em if js is None else (em + js) / 2


mera_fs = leniency_metric(
    "mera_fs", version="4", strict=False, score=_fs,
    doc="MERA FinalScore (EM + JS)/2 with parity EM; in a run without a judge JS is not computed and FS = EM.",
)
mera_fs_strict = leniency_metric(
    "mera_fs_strict", version="strict-2", strict=True, score=_fs,
    doc="MERA FinalScore with the fixed EM of ``mera_em_strict``.",
)


def judge_note() -> dict[str, Any]:
    """Task metadata that says how FS is computed."""
    return {"fs": "(EM + JS) / 2 when the run has a judge (--judge); EM when it has none (JS not computed)"}
