"""Answer normalisation that is safe for Cyrillic (no ASCII-only character classes)."""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

__all__ = ["normalize_text", "strip_punctuation", "tokens"]

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
_ARTICLES = frozenset({"a", "an", "the"})


@functools.cache
def _punct_table() -> dict[int, str]:
    """Map every Unicode punctuation code point (category P*) to a space, built once on first use."""
    limit = min(sys.maxunicode, 0x2FFFF)
    return {cp: " " for cp in range(limit + 1) if unicodedata.category(chr(cp)).startswith("P")}


def strip_punctuation(text: str) -> str:
    """Replace punctuation (any script) by spaces; symbols such as ``%`` or ``$`` stay."""
    return text.translate(_punct_table())


def normalize_text(text: str, *, punctuation: bool = True) -> str:
    """NFKC, casefold, ё→е, punctuation removed (unless ``punctuation=False``), whitespace collapsed."""
    out = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    if punctuation:
        out = strip_punctuation(out)
    return _SPACE.sub(" ", out).strip()


def tokens(text: str, *, drop_articles: bool = False) -> list[str]:
    """Word tokens of the normalised text (Unicode ``\\w``), optionally without English articles."""
    words = _WORD.findall(normalize_text(text))
    if drop_articles:
        return [w for w in words if w not in _ARTICLES]
    return words
