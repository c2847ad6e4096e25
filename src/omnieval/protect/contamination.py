"""Benchmark-vs-corpus n-gram overlap, streamed so the corpus may be far larger than memory.

The benchmark side (small) is held as a map from hashed word n-grams to the samples that contain them;
the corpus is read one document at a time (plain text lines, JSONL with a text field, optionally gzip,
files or whole folders). A sample counts as contaminated when at least ``threshold`` of its n-grams occur
somewhere in the corpus — the 13-gram rule popularised by GPT-3's contamination study is the default.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from omnieval.errors import SourceError
from omnieval.types import Sample

__all__ = ["NgramIndex", "iter_corpus", "ngram_overlap", "word_ngrams"]

_WORD = re.compile(r"\w+", re.UNICODE)


def word_ngrams(text: str, n: int) -> set[int]:
    """Hashed lower-case word n-grams (ё folded to е); a text shorter than ``n`` words gives one n-gram of
    all."""
    words = _WORD.findall(text.lower().replace("ё", "е"))
    if not words:
        return set()
    grams = [" ".join(words[i : i + n]) for i in range(max(1, len(words) - n + 1))]
    return {int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "little") for g in grams}


def sample_text(sample: Sample, *, include_targets: bool) -> str:
    """What a model could have memorised: the question, the options and (optionally) the answers."""
    parts = [sample.input, *(sample.choices or ())]
    if include_targets:
        parts += [str(t) for t in sample.targets if t not in (None, "")]
    return "\n".join(p for p in parts if p)


@dataclass
class NgramIndex:
    """Benchmark n-grams → samples, plus each sample's hits as the corpus streams by."""

    n: int
    owners: dict[int, list[int]] = field(default_factory=dict)
    keys: list[tuple[str, str]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    matched: list[set[int]] = field(default_factory=list)
    first_document: list[str | None] = field(default_factory=list)

    def add(self, task: str, sample_id: str, text: str) -> None:
        grams = word_ngrams(text, self.n)
        index = len(self.keys)
        self.keys.append((task, sample_id))
        self.sizes.append(len(grams))
        self.matched.append(set())
        self.first_document.append(None)
        for gram in grams:
            self.owners.setdefault(gram, []).append(index)

    def scan(self, document_id: str, text: str) -> None:
        for gram in word_ngrams(text, self.n) & self.owners.keys():
            for index in self.owners[gram]:
                self.matched[index].add(gram)
                if self.first_document[index] is None:
                    self.first_document[index] = document_id


def _open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def iter_corpus(
    paths: Iterable[Path], *, text_field: str = "text", carry_words: int = 0
) -> Iterator[tuple[str, str]]:
    """``(document id, text)`` one at a time: a JSONL line's ``text_field`` or a plain-text line.

    A plain-text line is prefixed with the last ``carry_words`` words of the file's previous line (give n −
    1),
    so an n-gram that a wrapped text splits over a line break is still seen; JSONL records stand alone.
    """
    for root in paths:
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        if not files:
            raise SourceError(f"corpus {root}: no files to read")
        for path in files:
            is_jsonl = ".jsonl" in path.suffixes or ".json" in path.suffixes
            carried: list[str] = []
            try:
                with _open_text(path) as fh:
                    for number, line in enumerate(fh, 1):
                        if not line.strip():
                            continue
                        if is_jsonl:
                            yield f"{path}:{number}", _json_text(line, path, number, text_field)
                            continue
                        yield f"{path}:{number}", " ".join([*carried, line])
                        carried = _WORD.findall(line)[-carry_words:] if carry_words > 0 else []
            except (OSError, UnicodeDecodeError, EOFError) as exc:
                raise SourceError(f"corpus file {path}: unreadable ({exc})") from None


def _json_text(line: str, path: Path, number: int, text_field: str) -> str:
    try:
        value = json.loads(line)[text_field]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise SourceError(
            f"corpus file {path}, line {number}: not JSON with a {text_field!r} field"
        ) from None
    return str(value)


def ngram_overlap(
    samples: Iterable[tuple[str, Sample]],
    corpus: Iterable[tuple[str, str]],
    *,
    n: int = 13,
    threshold: float = 0.5,
    include_targets: bool = True,
) -> dict[str, Any]:
    """Per-sample overlap report and per-task contamination rates."""
    index = NgramIndex(n=n)
    for task, sample in samples:
        index.add(task, sample.id, sample_text(sample, include_targets=include_targets))
    documents = 0
    for document_id, text in corpus:
        index.scan(document_id, text)
        documents += 1
    rows: list[dict[str, Any]] = []
    per_task: dict[str, dict[str, Any]] = {}
    for i, (task, sample_id) in enumerate(index.keys):
        overlap = len(index.matched[i]) / index.sizes[i] if index.sizes[i] else 0.0
        flagged = overlap >= threshold and index.sizes[i] > 0
        rows.append(
            {
                "task": task,
                "sample_id": sample_id,
                "ngrams": index.sizes[i],
                "matched": len(index.matched[i]),
                "overlap": round(overlap, 6),
                "contaminated": flagged,
                "first_document": index.first_document[i],
            }
        )
        stats = per_task.setdefault(task, {"samples": 0, "contaminated": 0})
        stats["samples"] += 1
        stats["contaminated"] += flagged
    for stats in per_task.values():
        stats["rate"] = round(stats["contaminated"] / stats["samples"], 6) if stats["samples"] else 0.0
    return {"n": n, "threshold": threshold, "documents": documents, "tasks": per_task, "samples": rows}
