"""The ART Yes/No protocol (paper §4, Listing 2): relevance, absolute and relative accuracy.

A response is *relevant* iff it is "Yes" or "No" (Russian edition: also "Да"/"Нет"). The paper does not
say how it normalised answers; we strip whitespace, surrounding quotes/asterisks and trailing
punctuation and compare case-insensitively (so "Yes." counts, "Yes, because ..." does not unless
``leading=True``). Absolute accuracy = correct / all; relative accuracy = correct / relevant (the
``art.over_relevant`` aggregation divides by the relevant count, not the sample count).
"""

from __future__ import annotations

from collections.abc import Sequence

from omnieval.metrics import register_aggregation, register_metric
from omnieval.types import SampleResult, ScoringInput

__all__ = ["absolute_accuracy", "over_relevant", "relative_accuracy", "relevant", "yes_no"]

_WORDS = {"yes": "Yes", "да": "Yes", "no": "No", "нет": "No"}
_TRIM = " \t\r\n\"'«»“”*`.!,;:"


def yes_no(text: str, *, leading: bool = False) -> str | None:
    """``"Yes"``/``"No"`` when the response is one of them, else ``None``."""
    cleaned = text.strip(_TRIM).casefold()
    if cleaned in _WORDS:
        return _WORDS[cleaned]
    if leading:
        first = cleaned.replace(",", " ").replace(".", " ").split()
        return _WORDS.get(first[0].strip(_TRIM)) if first else None
    return None


def _gold(inp: ScoringInput) -> str | None:
    return yes_no(str(inp.targets[0])) if inp.targets else None


@register_metric("art.relevant")
def relevant(inp: ScoringInput, /, *, leading: bool = False) -> float:
    """1 if the response is Yes or No (ART's "relevant")."""
    return 1.0 if yes_no(inp.response, leading=leading) is not None else 0.0


@register_metric("art.absolute_accuracy")
def absolute_accuracy(inp: ScoringInput, /, *, leading: bool = False) -> float:
    """1 if the response is the gold Yes/No (correct / all samples)."""
    return _correct(inp, leading=leading)


def _correct(inp: ScoringInput, *, leading: bool) -> float:
    answer = yes_no(inp.response, leading=leading)
    return 1.0 if answer is not None and answer == _gold(inp) else 0.0


@register_metric("art.relative_accuracy")
def relative_accuracy(inp: ScoringInput, /, *, leading: bool = False) -> float:
    """Per sample the same as absolute accuracy; aggregate with ``art.over_relevant`` (correct / relevant)."""
    return _correct(inp, leading=leading)


@register_aggregation("art.over_relevant")
def over_relevant(
    values: Sequence[float], results: Sequence[SampleResult], /, *, relevant_key: str = "art.relevant"
) -> float:
    """Sum of the values over the number of relevant samples (0.0 when none is relevant)."""
    n_relevant = sum(r.metrics.get(relevant_key, 0.0) for r in results)
    return float(sum(values) / n_relevant) if n_relevant else 0.0
