"""MWS-Vision-Bench's METEOR against NLTK's own ``meteor_score`` (the authors' call), with NLTK's real
Porter stemmer and a WordNet that knows no synonyms (the corpus is a run-time download)."""

from __future__ import annotations

import random
from typing import Any

from nltk.stem.porter import PorterStemmer
from nltk.translate.meteor_score import meteor_score

from omnieval.benchmarks.mws_vision.scoring import _stem, meteor

CYRILLIC = ("документ", "документы", "Счёт", "счёт,", "ООО", "г.", "стр.", "Итого:", "сумма")
LATIN = ("services", "service", "Running", "runs", "run", "documents", "document.", "Office", "offices")
OTHER = ("2023", "1", "I", "II", "(c)", "e-mail:", "www.site.ru", "Inc.", "ies", "sky", "news", "is", "a")


class _NoSynonyms:
    def synsets(self, word: str) -> list[Any]:
        return []


def test_meteor_equals_nltk_with_its_stemmer_on_mixed_text() -> None:
    rng = random.Random(36)
    words = [*CYRILLIC, *LATIN, *OTHER]
    stem_matched = 0
    for _ in range(400):
        reference = [rng.choice(words) for _ in range(rng.randint(0, 25))]
        hypothesis = [rng.choice(words) for _ in range(rng.randint(0, 25))]
        expected = meteor_score([reference], hypothesis, wordnet=_NoSynonyms())
        assert meteor(reference, hypothesis) == expected, (reference, hypothesis)
        exact_only = meteor_score([reference], hypothesis, stemmer=_Identity(), wordnet=_NoSynonyms())
        stem_matched += expected != exact_only
    assert stem_matched > 50  # the stem stage changed many of these scores


class _Identity:
    def stem(self, word: str) -> str:
        return word.lower()


def test_a_word_not_ending_in_an_ascii_letter_is_its_own_porter_stem() -> None:
    porter = PorterStemmer()
    rng = random.Random(7)
    alphabet = "абвгдеёжзийклмнопрстуфхцчшщъыьэюяabcdefghijklmnopqrstuvwxyz0123456789.,:-()éß"
    for _ in range(3000):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        assert _stem(word) == porter.stem(word), word
    for word in (*CYRILLIC, *LATIN, *OTHER):
        assert _stem(word.lower()) == porter.stem(word.lower()), word


def test_a_porter_stem_keeps_its_word_s_first_letter() -> None:
    """What lets METEOR stem only words whose first letter the other side has: suffix-only words,
    irregular forms and random words."""
    porter = PorterStemmer()
    suffixes = [
        "ies",
        "ied",
        "ing",
        "ed",
        "eed",
        "s",
        "ss",
        "sses",
        "ational",
        "tional",
        "enci",
        "anci",
        "izer",
        "bli",
        "alli",
        "entli",
        "eli",
        "ousli",
        "ization",
        "ation",
        "ator",
        "alism",
        "iveness",
        "fulness",
        "ousness",
        "aliti",
        "iviti",
        "biliti",
        "fulli",
        "lessli",
        "logi",
        "icate",
        "ative",
        "alize",
        "iciti",
        "ical",
        "ful",
        "ness",
        "al",
        "ance",
        "ence",
        "er",
        "ic",
        "able",
        "ible",
        "ant",
        "ement",
        "ment",
        "ent",
        "ion",
        "ou",
        "ism",
        "ate",
        "iti",
        "ous",
        "ive",
        "ize",
        "e",
        "ll",
        "y",
    ]
    rng = random.Random(11)
    words = [*suffixes, *(w + s for w in ("a", "b", "y", "é", "д") for s in suffixes), *porter.pool]
    words += ["".join(rng.choice("aeiouybcdlnst") for _ in range(rng.randint(1, 10))) for _ in range(5000)]
    for word in words:
        assert porter.stem(word)[:1] == word[:1], word
