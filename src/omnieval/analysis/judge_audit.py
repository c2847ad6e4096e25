"""Judge audits as pure functions over verdicts: does a judge contradict itself, prefer a position or
long answers, agree with another judge, and what does it cost?

- :func:`flip_rate`: the same items judged several times; an item *flips* when its valid verdicts differ.
- :func:`position_swap`: pairwise prompts asked twice with the two answers swapped; a consistent judge
  prefers the same *answer* both times, a position-biased one the same *slot*.
- :func:`length_bias`: Pearson (point-biserial for 0/1 verdicts) and Spearman correlation of verdict with
  answer length; a strong positive value means longer answers are rated higher.
- :func:`binary_agreement`: two judges on the same items: observed agreement and Cohen's κ.
- :func:`judge_cost`: tokens, requests, cache hits, failures and time from the judge calls.

Missing verdicts (``None``: the judge call failed) are never counted as a value; each function says how
many items it left out. A statistic that is undefined on the data (κ when both judges are constant, a
correlation of a constant) is ``None`` with a note, never NaN or a silent 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["binary_agreement", "flip_rate", "judge_cost", "length_bias", "position_swap"]

Verdict = float | None


def flip_rate(repeats: Mapping[str, Sequence[Verdict]]) -> dict[str, Any]:
    """Share of items whose repeated verdicts are not all equal (items with < 2 valid verdicts left out).

    Also the pairwise disagreement: over all pairs of repeats of an item, the share that differ, averaged
    over items (for 2 repeats both numbers coincide).
    """
    flipped, used, skipped, pairwise = [], 0, 0, []
    for item, verdicts in repeats.items():
        valid = [v for v in verdicts if v is not None]
        if len(valid) < 2:
            skipped += 1
            continue
        used += 1
        if len(set(valid)) > 1:
            flipped.append(item)
        pairs = [(a, b) for i, a in enumerate(valid) for b in valid[i + 1 :]]
        pairwise.append(sum(a != b for a, b in pairs) / len(pairs))
    return {
        "items": used,
        "items_skipped": skipped,
        "flipped": len(flipped),
        "flip_rate": len(flipped) / used if used else None,
        "pairwise_disagreement": sum(pairwise) / len(pairwise) if pairwise else None,
        "flipped_items": sorted(flipped),
    }


_SWAP = {"A": "B", "B": "A", "tie": "tie"}


def position_swap(pairs: Sequence[tuple[str | None, str | None]]) -> dict[str, Any]:
    """Consistency of pairwise verdicts under swapping the two answers.

    Each pair is ``(winner in the original order, winner in the swapped order)``, each ``"A"`` (the
    first slot), ``"B"`` (the second) or ``"tie"``. Consistent: the swapped verdict names the other slot
    (the same answer won) or both are ties. Inconsistent verdicts where the same slot won twice are
    counted as first-slot or second-slot bias.
    """
    counts = {"consistent": 0, "first_slot": 0, "second_slot": 0, "tie_mismatch": 0}
    skipped = 0
    for original, swapped in pairs:
        if original not in _SWAP or swapped not in _SWAP:
            skipped += 1
            continue
        if _SWAP[original] == swapped:
            counts["consistent"] += 1
        elif original == swapped:
            counts["first_slot" if original == "A" else "second_slot"] += 1
        else:
            counts["tie_mismatch"] += 1
    used = sum(counts.values())
    return {
        "items": used,
        "items_skipped": skipped,
        **counts,
        "consistency": counts["consistent"] / used if used else None,
        "first_slot_rate": counts["first_slot"] / used if used else None,
        "second_slot_rate": counts["second_slot"] / used if used else None,
    }


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def length_bias(verdicts: Sequence[Verdict], lengths: Sequence[int]) -> dict[str, Any]:
    """Correlation of verdict with answer length (characters or tokens, as the caller measures)."""
    if len(verdicts) != len(lengths):
        raise ValueError(f"length_bias: {len(verdicts)} verdicts but {len(lengths)} lengths")
    pairs = [(float(v), float(n)) for v, n in zip(verdicts, lengths, strict=True) if v is not None]
    out: dict[str, Any] = {"items": len(pairs), "items_skipped": len(verdicts) - len(pairs)}
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    if len(pairs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        why = "fewer than 3 judged items" if len(pairs) < 3 else "verdicts or lengths are constant"
        return {
            **out,
            "pearson": None,
            "pearson_p": None,
            "spearman": None,
            "spearman_p": None,
            "note": f"undefined: {why}",
        }
    from scipy import stats

    pearson = stats.pearsonr(xs, ys)
    spearman = stats.spearmanr(xs, ys)
    binary = set(xs) <= {0.0, 1.0}
    return {
        **out,
        "pearson": _finite(pearson.statistic),
        "pearson_p": _finite(pearson.pvalue),
        "spearman": _finite(spearman.statistic),
        "spearman_p": _finite(spearman.pvalue),
        "note": "pearson is the point-biserial correlation (0/1 verdicts)" if binary else "",
        "mean_length_by_verdict": {
            str(v): sum(n for x, n in pairs if x == v) / xs.count(v) for v in sorted(set(xs))
        }
        if binary
        else {},
    }


def binary_agreement(first: Mapping[str, Verdict], second: Mapping[str, Verdict]) -> dict[str, Any]:
    """Observed agreement and Cohen's κ of two binary judges over the items both judged."""
    shared = sorted(k for k in first.keys() & second.keys() if first[k] is not None and second[k] is not None)
    a = [int(first[k]) for k in shared]  # type: ignore[arg-type]
    b = [int(second[k]) for k in shared]  # type: ignore[arg-type]
    bad = sorted({v for v in (*a, *b) if v not in (0, 1)})
    if bad:
        raise ValueError(f"binary_agreement: verdicts must be 0 or 1, got {bad}")
    out: dict[str, Any] = {
        "items": len(shared),
        "only_first": len([k for k in first if k not in second or second[k] is None]),
        "only_second": len([k for k in second if k not in first or first[k] is None]),
        "agreement": sum(x == y for x, y in zip(a, b, strict=True)) / len(shared) if shared else None,
        "confusion": {
            f"{x}{y}": sum(1 for p, q in zip(a, b, strict=True) if (p, q) == (x, y))
            for x in (0, 1)
            for y in (0, 1)
        },
    }
    if not shared or (len(set(a)) == 1 and set(a) == set(b)):
        return {
            **out,
            "kappa": None,
            "note": "kappa undefined: no shared items or both judges give one constant verdict",
        }
    from sklearn.metrics import cohen_kappa_score

    return {**out, "kappa": _finite(float(cohen_kappa_score(a, b, labels=[0, 1]))), "note": ""}


def judge_cost(calls: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Totals over judge calls: requests, cached, failed, prompt/completion tokens, latency seconds.

    Each call is a mapping with optional ``usage`` (``prompt_tokens``, ``completion_tokens``),
    ``latency_s``, ``cached`` and ``error``. Cached calls cost no tokens or time and are counted apart;
    token totals say how many calls reported no usage, so an unknown count is never read as zero.
    """
    totals: dict[str, Any] = {
        "requests": 0,
        "cached": 0,
        "failed": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "calls_without_usage": 0,
        "latency_s": 0.0,
    }
    for call in calls:
        if call.get("cached"):
            totals["cached"] += 1
            continue
        totals["requests"] += 1
        totals["failed"] += 1 if call.get("error") else 0
        usage = call.get("usage") or {}
        if usage.get("prompt_tokens") is None and usage.get("completion_tokens") is None:
            totals["calls_without_usage"] += 1
        totals["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
        totals["completion_tokens"] += int(usage.get("completion_tokens") or 0)
        totals["latency_s"] += float(call.get("latency_s") or 0.0)
    totals["total_tokens"] = totals["prompt_tokens"] + totals["completion_tokens"]
    totals["mean_latency_s"] = totals["latency_s"] / totals["requests"] if totals["requests"] else None
    return totals
