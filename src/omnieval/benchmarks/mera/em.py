"""MERA exact match: parity with MERA's released scorer by default, its quirks documented.

MERA_MULTIMODAL's ``custom_metrics.py`` scores EM with transformers' SQuAD ``compute_exact``:
lower-case, ASCII punctuation deleted, the English articles ``a``/``an``/``the`` removed as whole
words, whitespace collapsed. Quirk: a gold option letter ``A`` is an article, so it normalises to the
empty string, and an answer that normalises to empty then scores 1 on every A-gold question. The
paper's ANSWER rule (§3.3) over the released pieces: EM is the best of the whole answer and the text
after the last case-sensitive ``ОТВЕТ`` (``Ответ: да``, ``ANSWER: B``, ``ОТВЕТ — B`` and
``ОТВЕТ: «B»`` do not match there; ``ОТВЕТB`` does).

``mera_em_strict`` (``--strict-metrics``) keeps articles when the gold is one letter, never matches an
empty answer and reads the marker leniently (any case, English ANSWER, ``—``, ``«»`` and ``:`` after it
trimmed; ``textkit.marker.after_marker``). Four further leniencies are opt-in options, off by default
for parity: ``fold_yo`` (ё→е), ``nfkc`` (Unicode NFKC first), ``unicode_punctuation`` (delete every
Unicode punctuation character, not only ASCII) and ``letter_twins`` (a Cyrillic gold letter also
accepts the Latin letter at the same position, and vice versa: the importer's second target).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from omnieval.errors import MetricError
from omnieval.metrics import register_metric
from omnieval.textkit.marker import with_exact_marker_tail, with_marker_tail
from omnieval.types import ScoringInput

__all__ = [
    "LENIENCIES",
    "Leniency",
    "leniency_metric",
    "mera_em",
    "mera_em_strict",
    "mera_exact",
    "squad_normalize",
]

_ASCII_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLE = re.compile(r"(?<!\w)(?:a|an|the)(?!\w)")
PARITY_VERSION = "squad-parity-2"
STRICT_VERSION = "strict-1"


@dataclass(frozen=True)
class Leniency:
    """Opt-in normalisations beyond MERA's own (each changes scores; all are reported in results)."""

    fold_yo: bool = False
    nfkc: bool = False
    unicode_punctuation: bool = False
    letter_twins: bool = False

    def enabled(self) -> dict[str, bool]:
        return asdict(self)


LENIENCIES: dict[str, str] = {
    "fold_yo": "ё and е compare equal (ёлка = елка)",
    "nfkc": "Unicode NFKC first (full-width letters, ligatures, superscripts fold to plain forms)",
    "unicode_punctuation": "every Unicode punctuation character is deleted, not only ASCII («», —, …)",
    "letter_twins": "a one-letter gold also accepts the other alphabet's letter at the same position (Б = B)",
}


def _no_unicode_punctuation(text: str) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))


def squad_normalize(text: str, *, articles: bool = True, lenient: Leniency = Leniency()) -> str:
    """SQuAD answer normalisation (with ``Leniency`` extras); ``articles=False`` keeps a/an/the."""
    if lenient.nfkc:
        text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    if lenient.fold_yo:
        text = text.replace("ё", "е")
    text = text.translate(_ASCII_PUNCTUATION)
    if lenient.unicode_punctuation:
        text = _no_unicode_punctuation(text)
    if articles:
        text = _ARTICLE.sub(" ", text)
    return " ".join(text.split())


def _is_letter(gold: str) -> bool:
    core = gold.strip().rstrip(".)")
    return len(core) == 1 and core.isalpha()


def mera_exact(answer: str, targets: list[str], *, strict: bool, lenient: Leniency = Leniency()) -> float:
    """1.0 if the answer (or its text after the last ``ОТВЕТ``; ``strict``: any ANSWER/ОТВЕТ marker) equals
    the gold."""
    golds = targets if lenient.letter_twins else targets[:1]
    candidates = with_marker_tail(answer) if strict else with_exact_marker_tail(answer)
    for gold in golds:
        articles = not (strict and _is_letter(gold))
        normal_gold = squad_normalize(gold, articles=articles, lenient=lenient)
        for candidate in candidates:
            normal = squad_normalize(candidate, articles=articles, lenient=lenient)
            if strict and not normal:
                continue
            if normal == normal_gold:
                return 1.0
    return 0.0


def _texts(inp: ScoringInput, metric: str) -> tuple[str, list[str]]:
    targets = [str(t) for t in inp.targets if t is not None]
    if not targets:
        raise MetricError(f"metric {metric!r}: the sample has no gold answer")
    answer = inp.prediction if isinstance(inp.prediction, str) else inp.response
    return answer, targets


def score_em(inp: ScoringInput, *, strict: bool, options: dict[str, Any]) -> float:
    """EM of one sample under parity or strict rules and the given leniency options."""
    answer, targets = _texts(inp, "mera_em_strict" if strict else "mera_em")
    return mera_exact(answer, targets, strict=strict, lenient=Leniency(**options))


def leniency_metric(
    name: str, *, version: str, strict: bool, score: Callable[..., float], doc: str
) -> Callable[..., float]:
    """Register metric ``name``: ``score(inp, strict=strict, options=...)`` with the ``Leniency`` switches
    as its keyword options (named in the signature, so an unknown option fails at validation time)."""

    def metric(
        inp: ScoringInput,
        /,
        *,
        fold_yo: bool = False,
        nfkc: bool = False,
        unicode_punctuation: bool = False,
        letter_twins: bool = False,
    ) -> float:
        options = {
            "fold_yo": fold_yo,
            "nfkc": nfkc,
            "unicode_punctuation": unicode_punctuation,
            "letter_twins": letter_twins,
        }
        return score(inp, strict=strict, options=options)

    # the module-level name it is bound to, so it pickles and reads like a plain def
    metric.__name__ = metric.__qualname__ = name
    metric.__module__, metric.__doc__ = score.__module__, doc
    register_metric(name, version=version)(metric)
    return metric


mera_em = leniency_metric(
    "mera_em",
    version=PARITY_VERSION,
    strict=False,
    score=score_em,
    doc="MERA exact match, parity: compute_exact's SQuAD normalisation, best of answer and text after ОТВЕТ.",
)
mera_em_strict = leniency_metric(
    "mera_em_strict",
    version=STRICT_VERSION,
    strict=True,
    score=score_em,
    doc="MERA exact match, fixed: letter golds keep their letter, empty never matches, lenient ANSWER/ОТВЕТ "
    "marker.",
)
