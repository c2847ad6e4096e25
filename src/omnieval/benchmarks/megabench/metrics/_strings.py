"""MEGA-Bench string metrics (field value vs gold value), with the original's quirks.

Each function takes ``(pred, gold, *, strict=False)`` and returns a float; ``strict=True`` fixes
a documented quirk (see docs/benchmarks/megabench.md) and is reported as a different metric version.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from omnieval.benchmarks.megabench.metrics._convert import fenced_block, str_to_iterable

__all__ = [
    "bleu",
    "code_result_exact_str_match",
    "exact_str_match",
    "exact_str_match_case_insensitive",
    "gleu_cn",
    "multi_ref_phrase",
    "near_str_match",
    "normalized_similarity_damerau_levenshtein",
    "simple_str_match",
]

_MC_LETTER = re.compile(r"^\(?([A-Za-z])\)?(?:\s*\.\s*|\.)?(.*)", re.DOTALL)
_STRICT_MC = re.compile(r"^\(?([A-Za-z])(?:\)|\.|:|\s|$)")


def _letter_of(response: str, *, strict: bool) -> str:
    if strict:
        match = _STRICT_MC.match(response)
        return match.group(1) if match else response
    match = _MC_LETTER.match(response)
    return match.group(1) if match else response


def exact_str_match(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """``str(pred) == str(gold)``; a one-letter gold takes the response's leading letter."""
    response = pred if isinstance(pred, str) else str(pred)
    answer = gold if isinstance(gold, str) else str(gold)
    if len(answer) == 1 and answer.isalpha() and len(response) > 1:
        response = _letter_of(response, strict=strict)
    return 1.0 if response == answer else 0.0


def _squash(text: str, *, strict: bool) -> str:
    text = text.replace(" ", "").replace("-", "").replace("\n", "").replace("\t", "")
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", "", text) if strict else text.replace(".", "")
    return text.lower()


def simple_str_match(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Exact match after deleting spaces, ``-``, newlines, tabs and dots, lower-cased."""
    response = pred if isinstance(pred, str) else str(pred)
    # Only the response is str()-ed: a non-string gold fails on ``.replace`` (scored 0), as there.
    return exact_str_match(_squash(response, strict=strict), _squash(gold, strict=strict), strict=strict)


def exact_str_match_case_insensitive(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Exact match of lower-cased strings; a non-string prediction scores 0."""
    if not isinstance(pred, str) and isinstance(gold, str):
        return 0.0
    # No str() here: a non-string gold (an int in a JSON answer) fails on ``.lower()`` -> 0.
    return exact_str_match(pred.lower(), gold.lower(), strict=strict)


def code_result_exact_str_match(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Exact match against the gold's fenced result block (whitespace kept)."""
    answer = gold  # a non-string gold fails on ``.strip()`` (scored 0), as in the original
    if not answer.strip() or len(answer) > 10000:
        answer = answer.rstrip()
    block, _ = fenced_block(answer, keep_spacing=True, trim=False)
    return exact_str_match(pred, block, strict=strict)


def _approximate(text: str) -> str:
    from unidecode import unidecode

    words = [t for t in text.split(" ") if t.lower() not in {"the", "a"}]
    return str(unidecode(" ".join(words))).lower()


def near_str_match(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Damerau-Levenshtein normalised similarity of article-free ASCII-folded text, 0 below 0.9."""
    from rapidfuzz.distance import DamerauLevenshtein

    if not isinstance(pred, str) or not isinstance(gold, str):
        return 0.0
    return float(
        DamerauLevenshtein.normalized_similarity(_approximate(pred), _approximate(gold), score_cutoff=0.9)
    )


def normalized_similarity_damerau_levenshtein(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Damerau-Levenshtein normalised similarity in [0, 1] (continuous credit)."""
    from rapidfuzz.distance import DamerauLevenshtein

    if not isinstance(pred, str) and isinstance(gold, str):
        return 0.0
    return float(DamerauLevenshtein.normalized_similarity(pred, gold))


def multi_ref_phrase(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """1 when the prediction simple-matches any of the listed references."""
    refs = str_to_iterable(list, gold.replace("，", ","))  # a non-string gold fails, as there
    for ref in refs:
        if simple_str_match(pred, ref if isinstance(ref, str) else str(ref), strict=strict):
            return 1.0
    return 0.0


def _gleu(reference: list[str], hypothesis: list[str], max_n: int = 4) -> float:
    """Sentence GLEU (Google BLEU): n-gram matches over the larger n-gram total, n = 1..4."""
    matches = hyp_total = ref_total = 0
    for n in range(1, max_n + 1):
        hyp = Counter(tuple(hypothesis[i : i + n]) for i in range(len(hypothesis) - n + 1))
        ref = Counter(tuple(reference[i : i + n]) for i in range(len(reference) - n + 1))
        matches += sum((hyp & ref).values())
        hyp_total += sum(hyp.values())
        ref_total += sum(ref.values())
    denominator = max(hyp_total, ref_total)
    return matches / denominator if denominator else 0.0


def gleu_cn(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """GLEU over jieba search-mode tokens (Chinese translation tasks)."""
    import logging

    import jieba

    if not isinstance(pred, str) or not isinstance(gold, str):
        return 0.0
    jieba.setLogLevel(logging.WARNING)
    return _gleu(list(jieba.cut_for_search(pred)), list(jieba.cut_for_search(gold)))


def bleu(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """SacreBLEU sentence BLEU / 100; parity swaps hypothesis and reference as the original does."""
    import sacrebleu

    if not isinstance(pred, str) or not isinstance(gold, str):
        return 0.0
    hypothesis, reference = (pred, gold) if strict else (gold, pred)
    return float(sacrebleu.corpus_bleu([hypothesis], [[reference]]).score) / 100.0
