"""What an output directory already holds: the samples a resumed run must not request again."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from omnieval.store import rewrite_lines, scan_keys

__all__ = ["DoneIndex", "load_done"]


@dataclass
class DoneIndex:
    """Finished sample ids per task, plus earlier answers of chain steps (their history)."""

    ids: dict[str, set[str]] = field(default_factory=dict)
    chain_answers: dict[tuple[str, str], str] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)

    def has(self, task: str, sample_id: str) -> bool:
        return sample_id in self.ids.get(task, ())

    def response(self, task: str, sample_id: str) -> str | None:
        if not self.has(task, sample_id):
            return None
        return self.chain_answers.get((task, sample_id), "")

    def count(self, task: str) -> int:
        return self.counts[task]


def load_done(path: Path, *, retry_errors: bool) -> DoneIndex:
    """Index finished records; with ``retry_errors`` the error records are dropped (atomically) first."""
    index = DoneIndex()
    if not path.exists():
        return index
    keys = list(scan_keys(path))
    kept = [k for k in keys if not (retry_errors and k.state == "error")]
    if len(kept) != len(keys) or _has_partial_tail(path):
        rewrite_lines(path, [k.line for k in kept])
    for key in kept:
        index.ids.setdefault(key.task, set()).add(key.sample_id)
        index.counts[key.task] += 1
        if key.chain_answer is not None:
            index.chain_answers[(key.task, key.sample_id)] = key.chain_answer
    return index


def _has_partial_tail(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(0, 2)
        if fh.tell() == 0:
            return False
        fh.seek(-1, 2)
        return fh.read(1) != b"\n"
