"""MWS-Vision-Bench's METEOR against NLTK's own ``meteor_score`` with its defaults (the authors' call):
NLTK's Porter stemmer and English WordNet 3.0 (``scripts/wordnet_data.py``, run by ``make install``)."""

from __future__ import annotations

import contextlib
import multiprocessing
import random
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from nltk.corpus import wordnet
from nltk.stem.porter import PorterStemmer
from nltk.translate.meteor_score import meteor_score

from omnieval.benchmarks.mws_vision import scoring, synonyms
from omnieval.benchmarks.mws_vision.scoring import _stem, meteor

CYRILLIC = ("документ", "документы", "Счёт", "счёт,", "ООО", "г.", "стр.", "Итого:", "сумма")
LATIN = ("services", "service", "Running", "runs", "run", "documents", "document.", "Office", "offices")
OTHER = ("2023", "1", "I", "II", "(c)", "e-mail:", "www.site.ru", "Inc.", "ies", "sky", "news", "is", "a")
# WordNet synonyms whose Porter stems are still WordNet forms (NLTK's third stage sees stems), the
# irregular plurals WordNet's morphology exceptions know, and near misses whose stems are not lemmas
SYNONYMS = ("car", "auto", "quick", "fast", "sick", "ill", "children", "child", "one", "geese", "goose")
SYNONYMS += ("big", "large", "automobile", "Mice", "mouse", "buy", "purchase", "men", "man", "ran", "run")


class _NoSynonyms:
    def synsets(self, word: str) -> list[Any]:
        return []


def test_meteor_equals_nltk_with_its_defaults_on_mixed_text() -> None:
    rng = random.Random(36)
    words = [*CYRILLIC, *LATIN, *OTHER, *SYNONYMS]
    stem_matched = synonym_matched = 0
    for _ in range(600):
        reference = [rng.choice(words) for _ in range(rng.randint(0, 25))]
        hypothesis = [rng.choice(words) for _ in range(rng.randint(0, 25))]
        expected = meteor_score([reference], hypothesis)
        assert meteor(reference, hypothesis) == expected, (reference, hypothesis)
        no_synonyms = meteor_score([reference], hypothesis, wordnet=_NoSynonyms())
        exact_only = meteor_score([reference], hypothesis, stemmer=_Identity(), wordnet=_NoSynonyms())
        stem_matched += no_synonyms != exact_only
        synonym_matched += expected != no_synonyms
    assert stem_matched > 50  # the stem stage changed many of these scores
    assert synonym_matched > 50  # and the synonym stage many others


def test_synonym_pairs_score_as_in_nltk() -> None:
    """Pairs one by one, in both directions, inside a Cyrillic sentence."""
    for left, right in zip(SYNONYMS[::2], SYNONYMS[1::2], strict=True):
        for reference, hypothesis in ((left, right), (right, left)):
            ref = ["итого", reference, "сумма", "1"]
            hyp = ["итого", hypothesis, "сумма", "I"]
            assert meteor(ref, hyp) == meteor_score([ref], hyp), (ref, hyp)
    assert meteor(["car"], ["auto"]) > 0 and meteor(["big"], ["large"]) == 0  # stems: "larg" is no lemma


def test_cyrillic_text_never_loads_wordnet(monkeypatch: Any) -> None:
    def refuse() -> None:
        raise AssertionError("WordNet loaded for Cyrillic text")

    monkeypatch.setattr(scoring, "_wordnet_synonyms", refuse)
    reference, hypothesis = ["счёт", "документы", "Итого:", "сумма"], ["сумма", "документ", "счёт", "итого"]
    assert meteor(reference, hypothesis) == meteor_score([reference], hypothesis, wordnet=_NoSynonyms()) > 0


def test_a_missing_synonym_index_is_an_error_naming_the_install_script(monkeypatch: Any) -> None:
    monkeypatch.setattr(synonyms, "_RESOURCE", "corpora/wordnet/no_such_index.sqlite")
    scoring._wordnet_synonyms.cache_clear()
    try:
        with pytest.raises(LookupError, match=r"scripts/wordnet_data\.py"):
            meteor(["car"], ["auto"])
    finally:
        monkeypatch.undo()
        scoring._wordnet_synonyms.cache_clear()


def test_an_index_built_by_another_nltk_is_an_error_naming_the_install_script(tmp_path: Path) -> None:
    with contextlib.closing(sqlite3.connect(tmp_path / synonyms.INDEX)) as db, db:
        db.execute("CREATE TABLE stamp (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.executemany("INSERT INTO stamp VALUES (?, ?)", [("format", "1"), ("nltk", "0.0")])
    assert not synonyms.index_is_current(tmp_path)
    with pytest.raises(LookupError, match=r"not for .*scripts/wordnet_data\.py"):
        synonyms.IndexedWordNet(tmp_path / synonyms.INDEX)


@pytest.fixture(scope="module")
def nltk_wordnet() -> Any:
    """NLTK's own WordNet reader, loaded once (about 3 s): the truth the index is checked against."""
    wordnet.ensure_loaded()
    return wordnet


def _assert_index_agrees(index: synonyms.IndexedWordNet, reader: Any, words: Iterable[str]) -> int:
    found = 0
    for word in words:
        expected = synonyms.synonym_names(reader, word)
        assert index.synonyms(word) == expected, word
        found += bool(expected)
    return found


def test_the_synonym_index_holds_what_nltk_s_reader_finds_for_its_own_words(nltk_wordnet: Any) -> None:
    """A sample of the index's words, every WordNet exception form and every 25th lemma name."""
    index = synonyms.open_index()
    rng = random.Random(36)
    keys = index.words()
    assert len(keys) > 150_000
    assert _assert_index_agrees(index, nltk_wordnet, rng.sample(keys, 3000)) == 3000
    forms = list(synonyms.exception_forms(Path(str(nltk_wordnet.root))))
    assert len(forms) > 5000
    assert _assert_index_agrees(index, nltk_wordnet, forms) > len(forms) // 2
    lemmas = sorted(nltk_wordnet.all_lemma_names())[::25]
    assert _assert_index_agrees(index, nltk_wordnet, lemmas) > len(lemmas) // 2


def test_a_word_outside_the_synonym_index_has_no_synonyms_in_nltk(nltk_wordnet: Any) -> None:
    """Random ASCII strings, and Porter stems of WordNet's lemmas with inflection-like endings, upper-
    and lower-case: where NLTK's morphology finds synsets, the index has the same synonyms."""
    index = synonyms.open_index()
    rng = random.Random(7)
    porter = PorterStemmer()
    lemmas = [name for name in nltk_wordnet.all_lemma_names() if "_" not in name]
    endings = ["", "s", "es", "ies", "ed", "ing", "er", "est", "men", "ves", "ses", "ches", "shes", "xes"]
    endings += ["zes", "e", "y", "f", "ly", "ness", "ation"]
    words = [
        "".join(rng.choice("abcdeilmnorstuy'-.0") for _ in range(rng.randint(1, 7))) for _ in range(3000)
    ]
    for name in rng.sample(lemmas, 3000):
        stem = porter.stem(name)
        words += [
            stem + rng.choice(endings),
            name + rng.choice(endings),
            (stem + rng.choice(endings)).upper(),
        ]
    found = _assert_index_agrees(index, nltk_wordnet, words)
    assert 1000 < found < len(words) - 1000  # both kinds were asked about


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


def _child_meteors(pairs: list[tuple[list[str], list[str]]]) -> list[float]:
    return [meteor(reference, hypothesis) for reference, hypothesis in pairs]


def test_a_forked_worker_reads_the_synonym_index_itself() -> None:
    """The parent has the index open; a forked scoring worker opens its own connection and agrees."""
    pairs = [(["car"], ["auto"]), (["quick", "1"], ["fast", "one"]), (["big"], ["large"])]
    in_parent = _child_meteors(pairs)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        in_child = pool.apply(_child_meteors, (pairs,))
    assert in_child == in_parent == [meteor_score([r], h) for r, h in pairs]
    assert in_parent[0] > 0
