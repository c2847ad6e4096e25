"""Pronunciation helpers for MEGA-Bench's poetry constraints (CMUdict via ``pronouncing``).

Syllable counts, rhyming parts and stress patterns follow the original, including its handling of
out-of-vocabulary words (``-ed``/``-s``/``-es`` suffixes, ``un-`` prefixes, elided ``'`` forms) and
its small custom dictionary.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

__all__ = ["count_syllables_options", "is_line_iambic", "phones_for_word", "rhyming_part", "word_stresses"]

_CUSTOM: dict[str, list[str]] = {
    "'gainst": ["G EH1 N S T", "G EY1 N S T"],
    "'midst": ["M IH1 D S T"],
    "'mongst": ["M AH1 NG S T"],
    "'neath": ["N IY1 TH"],
    "beguiles": ["B IH0 G AY1 L Z"],
    "cerulean": ["S ER0 UW1 L IY0 AH0 N"],
    "doggo": ["D AO1 G OW0"],
    "downtorn": ["D AW1 N T AO2 R N"],
    "enthrall": ["EH0 N TH R AO1 L"],
    "fam'ly": ["F AE1 M L IY0"],
    "fiery": ["F AY1 ER0 IY0", "F AY1 R IY0"],
    "flits": ["F L IH1 T S"],
    "furred": ["F ER1 D"],
    "kneels": ["N IY1 L Z"],
    "o'er": ["OW1 ER0"],
    "orbs": ["AO1 R B Z"],
    "quenched": ["K W EH1 N CH D"],
    "quietude": ["K W AY1 AH0 T UW0 D"],
    "retold": ["R IY0 T OW1 L D"],
    "scurries": ["S K ER1 IY0 Z"],
    "sunbeams": ["S AH1 N B IY2 M Z"],
    "syncs": ["S IH1 NG K S"],
    "'twixt": ["T W IH1 K S T"],
}


def _cmu(word: str) -> list[str]:
    import pronouncing

    return list(pronouncing.phones_for_word(word))


def _guess_oov(text: str) -> list[str]:
    """Guess pronunciations of an out-of-vocabulary word from its stem, as the original does."""
    suffixes, prefixes, drop_prefixes = [""], [""], [""]
    if text.endswith("ed"):
        suffixes, text = [" D", " T", " AH0 D", " IH0 D"], text.removesuffix("ed")
    elif text.endswith("s"):
        if _cmu(text.removesuffix("s")):
            suffixes = [" S", " Z", " AH0 Z", " IH0 Z"] if text.endswith("es") else [" S", " Z"]
            text = text.removesuffix("s")
        elif text.endswith("es"):
            suffixes, text = [" AH0 Z", " IH0 Z"], text.removesuffix("es")
    if text.startswith("un"):
        prefixes, text = ["AH0 N "], text.removeprefix("un")
    elif text.startswith("'") and _cmu("a" + text.removeprefix("'")):
        drop_prefixes, text = ["AH0 "], "a" + text.removeprefix("'")
    found = _cmu(text)
    return [
        (pre + pr + suf).removeprefix(drop)
        for pre, pr, suf, drop in itertools.product(prefixes, found, suffixes, drop_prefixes)
    ]


@lru_cache(maxsize=65536)
def _phones(text: str) -> tuple[str, ...]:
    text = text.replace("’", "'").lower()
    suffixes = [""]
    if text.endswith("'s"):
        suffixes, text = [" Z"], text.removesuffix("'s")
    if text in _CUSTOM:
        return tuple(p + s for p, s in itertools.product(_CUSTOM[text], suffixes))
    found = _cmu(text)
    if found:
        return tuple(p + s for p, s in itertools.product(found, suffixes))
    if suffixes[0]:
        return ()
    return tuple(_guess_oov(text))


def phones_for_word(word: str) -> list[str]:
    """CMUdict pronunciations of ``word`` (possibly guessed); empty when unknown."""
    return list(_phones(word))


def rhyming_part(phones: str) -> str:
    """From the last vowel (not counting the first phone) to the end, stress digits removed."""
    parts = phones.split()
    for i in range(len(parts) - 1, 0, -1):
        if parts[i][-1] in "012":
            phones = " ".join(parts[i:])
            break
    return re.sub(r"\d", "", phones)


def count_syllables_options(line: str) -> set[int]:
    """Every syllable total a line can have over its words' pronunciations.

    The original enumerates the Cartesian product of pronunciations; a running set of sums gives
    the same totals without the combinatorial blow-up. A word without pronunciation empties it.
    """
    import pronouncing

    totals = {0}
    for word in line.split():
        counts = {pronouncing.syllable_count(p) for p in phones_for_word(word)}
        totals = {t + c for t in totals for c in counts}
    return totals


def word_stresses(word: str) -> list[list[int]]:
    """Distinct stress patterns of the word's pronunciations."""
    import pronouncing

    return [
        list(p) for p in {tuple(int(s) for s in pronouncing.stresses(ph)) for ph in phones_for_word(word)}
    ]


_IAMBIC = {(2, 1), (0, 2), (0, 1), (0, 0), (1, 1), (2, 2)}


def _word_fits(pattern: list[int], syllable: int, prev: int) -> tuple[bool, int, int]:
    """Whether a word's stresses continue an iambic line; returns (fits, syllables used, carry)."""
    i = 0
    if syllable % 2 != 0:
        if (prev, pattern[0]) not in _IAMBIC:
            return False, 0, -1
        i = 1
    while i + 1 < len(pattern):
        if (pattern[i], pattern[i + 1]) not in _IAMBIC:
            return False, 0, -1
        i += 2
    if i < len(pattern):
        return True, i + 1, pattern[i]
    return True, i, -1


def is_line_iambic(line: str) -> bool:
    """Whether some choice of pronunciations makes the line a run of iambic feet."""
    options = [word_stresses(w) for w in line.split()]

    def search(index: int, syllable: int, prev: int) -> bool:
        if index == len(options):
            return syllable % 2 == 0
        for pattern in options[index]:
            fits, used, carry = _word_fits(pattern, syllable, prev)
            if fits and search(index + 1, syllable + used, carry):
                return True
        return False

    return search(0, 0, -1)
