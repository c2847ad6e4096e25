"""The WordNet synonyms NLTK's METEOR asks for, precomputed once by NLTK itself into a small SQLite index.

NLTK's synonym stage (``meteor_score``'s ``wordnetsyn_match``) asks WordNet one thing per hypothesis word
``w``: ``S(w)``, the names without ``_`` of the lemmas of ``wordnet.synsets(w)``. Loading NLTK's WordNet
reader for that costs seconds and hundreds of MiB per process, so ``scripts/wordnet_data.py`` computes
``S(w)`` with that reader for every word it can be non-empty for, and scoring looks words up here instead.

Why the list of words is complete: ``synsets(w)`` lower-cases ``w`` and, for each part of speech, asks
``_morphy`` for index lemmas among ``w`` itself and either ``w``'s exception-list forms (when ``w`` is an
exception) or ``w`` with one suffix rule applied (``old`` ending replaced by ``new``). So ``S(w)`` is
non-empty only if ``w`` is an index lemma, an exception form, or an index lemma of that part of speech
ending in ``new`` with ``new`` replaced by ``old``. Those words are the candidates; a word outside them
has no synsets. ``tests/vqa_parity/test_mws_meteor.py`` checks this against NLTK's reader.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "INDEX",
    "IndexedWordNet",
    "build_index",
    "candidate_words",
    "exception_forms",
    "index_is_current",
    "open_index",
    "synonym_names",
]

INDEX = "omnieval_synonyms.sqlite"  # in the folder of NLTK's ``corpora/wordnet``
_RESOURCE = f"corpora/wordnet/{INDEX}"
_FORMAT = "1"  # bump when what a row means changes

INDEX_MISSING = (
    "MWS-Vision-Bench's METEOR matches English WordNet synonyms as NLTK's meteor_score does, from the "
    "index scripts/wordnet_data.py builds with NLTK next to WordNet 3.0 ({resource} on nltk.data.path), "
    "and {problem}. Install or rebuild it with `make install` or `{python} scripts/wordnet_data.py` from "
    "the omnieval repository."
)


def exception_forms(folder: Path) -> Iterator[str]:
    """The inflected forms of WordNet's ``*.exc`` lists, split as NLTK's reader splits them."""
    for path in sorted(folder.glob("*.exc")):
        for line in path.read_text(encoding="utf-8").splitlines():
            terms = line.split()
            if terms:
                yield terms[0]


def candidate_words(wordnet: Any, folder: Path) -> set[str]:
    """Every word ``wordnet.synsets`` can find synsets for (see the module docstring)."""
    words = set(wordnet.all_lemma_names())
    words.update(exception_forms(folder))
    for pos, rules in wordnet.MORPHOLOGICAL_SUBSTITUTIONS.items():
        lemmas = list(wordnet.all_lemma_names(pos=pos))
        for old, new in rules:
            words.update(lemma[: len(lemma) - len(new)] + old for lemma in lemmas if lemma.endswith(new))
    return words


def synonym_names(wordnet: Any, word: str) -> set[str]:
    """``S(word)`` exactly as NLTK's ``_enum_wordnetsyn_match`` collects it (before adding the word)."""
    return {
        lemma.name()
        for synset in wordnet.synsets(word)
        for lemma in synset.lemmas()
        if "_" not in lemma.name()
    }


def _stamp() -> dict[str, str]:
    import nltk

    return {"format": _FORMAT, "nltk": str(nltk.__version__)}


def build_index(folder: Path, *, source: str) -> int:
    """Write ``folder/INDEX`` from NLTK's reader over the WordNet files in ``folder``; the rows written."""
    from nltk.corpus.reader import WordNetCorpusReader

    wordnet = WordNetCorpusReader(str(folder), None)
    rows: dict[str, str] = {}
    for word in sorted(candidate_words(wordnet, folder)):
        names = synonym_names(wordnet, word)
        if names:
            rows.setdefault(word.lower(), " ".join(sorted(names)))  # synsets(w) is synsets(w.lower())
    partial = folder / f"{INDEX}.partial"
    partial.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(partial)) as db, db:
        db.execute("CREATE TABLE synonyms (word TEXT PRIMARY KEY, names TEXT NOT NULL) WITHOUT ROWID")
        db.execute("CREATE TABLE stamp (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.executemany("INSERT INTO synonyms VALUES (?, ?)", rows.items())
        db.executemany("INSERT INTO stamp VALUES (?, ?)", {**_stamp(), "wordnet": source}.items())
    partial.replace(folder / INDEX)
    return len(rows)


def _stamp_problem(db: sqlite3.Connection) -> str | None:
    """Why the index cannot be used, or None: it must come from this NLTK (its morphology decides)."""
    try:
        stamp = dict(db.execute("SELECT key, value FROM stamp").fetchall())
    except sqlite3.DatabaseError as error:
        return f"it cannot be read ({error})"
    expected = _stamp()
    if {key: stamp.get(key) for key in expected} != expected:
        return f"it was built for {stamp}, not for {expected}"
    return None


def index_is_current(folder: Path) -> bool:
    """Whether ``folder`` has an index built by this NLTK (else ``scripts/wordnet_data.py`` rebuilds it)."""
    if not (folder / INDEX).is_file():
        return False
    with contextlib.closing(sqlite3.connect(f"file:{folder / INDEX}?mode=ro", uri=True)) as db:
        return _stamp_problem(db) is None


class IndexedWordNet:
    """The one method of a WordNet reader that NLTK's ``wordnetsyn_match`` calls, ``synsets``, answered
    from the index: one pseudo-synset whose lemmas are ``S(word)`` (the matcher only takes their names)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._pid = os.getpid()
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        problem = _stamp_problem(self._db)
        if problem:
            self._db.close()
            raise LookupError(INDEX_MISSING.format(resource=path, problem=problem, python=sys.executable))
        self._lookup = functools.lru_cache(maxsize=65_536)(self._names)

    def _connection(self) -> sqlite3.Connection:
        """This process's connection: a forked worker opens its own (SQLite connections must not cross
        a fork)."""
        if os.getpid() != self._pid:
            self._pid = os.getpid()
            self._db = sqlite3.connect(f"file:{self._path}?mode=ro", uri=True, check_same_thread=False)
        return self._db

    def _names(self, word: str) -> tuple[_Lemma, ...]:
        row = self._connection().execute("SELECT names FROM synonyms WHERE word = ?", (word,)).fetchone()
        return () if row is None else tuple(_Lemma(name) for name in row[0].split(" "))

    def words(self) -> list[str]:
        """Every word with synonyms, lower-cased (what the index holds)."""
        return [row[0] for row in self._connection().execute("SELECT word FROM synonyms")]

    def synonyms(self, word: str) -> set[str]:
        return {lemma.name() for lemma in self._lookup(word.lower())}

    def synsets(self, word: str) -> list[_Synset]:
        lemmas = self._lookup(word.lower())
        return [_Synset(lemmas)] if lemmas else []


class _Lemma:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def name(self) -> str:
        return self._name


class _Synset:
    __slots__ = ("_lemmas",)

    def __init__(self, lemmas: Iterable[_Lemma]) -> None:
        self._lemmas = list(lemmas)

    def lemmas(self) -> list[_Lemma]:
        return self._lemmas


def open_index() -> IndexedWordNet:
    """The index on ``nltk.data.path``; a clear error naming the install script when it is not there."""
    import nltk.data

    try:
        location = nltk.data.find(_RESOURCE)
    except LookupError:
        problem = "NLTK finds no such file"
        raise LookupError(
            INDEX_MISSING.format(resource=_RESOURCE, problem=problem, python=sys.executable)
        ) from None
    return IndexedWordNet(Path(str(location)))
