"""Answer normalisation that is safe for Cyrillic (no ASCII-only character classes)."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["normalize_text", "strip_punctuation", "tokens"]

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
_ARTICLES = frozenset({"a", "an", "the"})


class _PunctuationMap(dict[int, str]):
    """``str.translate`` table mapping punctuation (category P*) to a space, filled lazily per code point."""

    def __missing__(self, codepoint: int) -> str:
        char = chr(codepoint)
        value = " " if unicodedata.category(char).startswith("P") else char
        self[codepoint] = value
        return value


_PUNCTUATION = _PunctuationMap()


def strip_punctuation(text: str) -> str:
    """Replace punctuation (any script) by spaces; symbols such as ``$`` or ``+`` stay (``%`` is punctuation
    in Unicode)."""
    return text.translate(_PUNCTUATION)


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
