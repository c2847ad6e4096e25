"""What was said against what should have been: CER and WER of a transcript, spoken-text normalisation.

Both sides are normalised the same way before counting (docs/running/spoken-answers.md): NFKC, lower
case, ``ё`` → ``е``, every number written out in words in the text's language (``1995`` →
``одна тысяча девятьсот девяносто пять``; a date ``12.04.2021`` is three numbers), ``%`` as a word,
punctuation and hyphens as spaces, runs of spaces as one. A recogniser may write a number as digits or
words and a reference either way: after normalisation they agree. Numbers are spelled by ``num2words``
(extra ``speech``), in the nominative: a case ending the speaker inflected still counts as an error.
"""

from __future__ import annotations

import re
import unicodedata

from omnieval.errors import ConfigError
from omnieval.metrics.base import register_metric
from omnieval.metrics.library._common import prediction_text, target_texts
from omnieval.types import ScoringInput

__all__ = [
    "cer",
    "edit_distance",
    "intelligibility",
    "language_of",
    "mos",
    "normalize_spoken",
    "spell_number",
    "spoken_wer",
]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_PERCENT = {"ru": " процентов ", "en": " percent "}
_THOUSANDS = re.compile(r"(?<=\d)[ \u00a0\u202f,](?=\d{3}(?!\d))")
"""A thousands separator inside a number (``1 000``, ``9,111`` as recognisers write it), joined before
spelling: a comma before exactly three digits groups thousands, before one or two it is a decimal."""


def language_of(text: str) -> str:
    """``ru`` when the text has Cyrillic letters, else ``en``."""
    return "ru" if re.search("[а-яё]", text, re.IGNORECASE) else "en"


def spell_number(token: str, *, language: str) -> str:
    """``token`` (digits, a decimal comma or point allowed) in words, by num2words."""
    try:
        from num2words import num2words
    except ImportError:
        raise ConfigError(
            "spoken-text normalisation: pip install num2words (omnieval extra 'speech')"
        ) from None
    whole, sep, frac = token.replace(",", ".").partition(".")
    words = num2words(int(whole), lang=language)
    if sep:  # read as two numbers, the way a date or a version is spoken part by part
        words += " " + num2words(int(frac), lang=language)
    return str(words)


def normalize_spoken(text: str, *, language: str | None = None) -> str:
    """The documented spoken-text normalisation (module docstring); ``language`` defaults by script."""
    lang = language or language_of(text)
    out = unicodedata.normalize("NFKC", text).lower().replace("ё", "е")
    out = _THOUSANDS.sub("", out).replace("%", _PERCENT.get(lang, " "))
    out = re.sub(r"(\d+)[.:/-](?=\d)", r"\1 ", out)  # dates and times: each part a number
    out = _NUMBER.sub(lambda m: f" {spell_number(m.group(0), language=lang)} ", out)
    out = "".join(ch if ch.isalnum() or ch.isspace() else " " for ch in out)
    return " ".join(out.split())


def edit_distance(a: str | list[str], b: str | list[str]) -> int:
    """Levenshtein distance between two strings (characters) or two word lists."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _rate(reference: str | list[str], hypothesis: str | list[str]) -> float:
    if not reference:
        return 0.0 if not hypothesis else 1.0
    return min(1.0, edit_distance(reference, hypothesis) / len(reference))


def _best(inp: ScoringInput, *, metric: str, language: str | None, words: bool) -> float:
    best = 1.0
    for ref in target_texts(inp, metric=metric):
        lang = language or language_of(ref)
        r = normalize_spoken(ref, language=lang)
        h = normalize_spoken(prediction_text(inp), language=lang)
        best = min(best, _rate(r.split(), h.split()) if words else _rate(r, h))
    return best


@register_metric("cer", higher_is_better=False)
def cer(inp: ScoringInput, /, *, language: str | None = None) -> float:
    """Character error rate of the transcript against the best gold, spoken-text normalised, capped at 1."""
    return _best(inp, metric="cer", language=language, words=False)


@register_metric("spoken_wer", higher_is_better=False)
def spoken_wer(inp: ScoringInput, /, *, language: str | None = None) -> float:
    """Word error rate with the spoken-text normalisation (numbers as words), capped at 1."""
    return _best(inp, metric="spoken_wer", language=language, words=True)


@register_metric("intelligibility")
def intelligibility(inp: ScoringInput, /, *, language: str | None = None) -> float:
    """1 − CER: the share of the reference's characters heard right (the spoken tasks' score)."""
    return 1.0 - _best(inp, metric="intelligibility", language=language, words=False)


@register_metric("mos")
def mos(inp: ScoringInput, /) -> float:
    """DNSMOS overall quality of the spoken answer, the 1–5 opinion scale mapped onto [0, 1] as
    ``(MOS − 1) / 4`` (the raw figures stay in the record's ``audio.measures.dnsmos_*``). The hearing
    measures it when a task scores ``mos`` (extra ``speech-mos``); a text answer has none to measure."""
    measures = inp.audio.measures if inp.audio is not None else {}
    if "dnsmos_ovrl" not in measures:
        raise ValueError("no DNSMOS estimate: 'mos' scores spoken answers heard with the metric requested")
    return min(1.0, max(0.0, (measures["dnsmos_ovrl"] - 1.0) / 4.0))
