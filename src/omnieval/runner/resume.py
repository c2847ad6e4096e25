"""What an output directory already holds: the samples a resumed run must not request again."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from omnieval.store import iter_records, rewrite_records

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
    records = list(iter_records(path))
    kept = [r for r in records if not (retry_errors and r.get("state") == "error")]
    if len(kept) != len(records) or _has_partial_tail(path):
        rewrite_records(path, kept)
    for rec in kept:
        task, sample_id = rec["task"], str(rec["sample_id"])
        index.ids.setdefault(task, set()).add(sample_id)
        index.counts[task] += 1
        if rec.get("chain") is not None:
            index.chain_answers[(task, sample_id)] = rec.get("response") or ""
    return index


def _has_partial_tail(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(0, 2)
        if fh.tell() == 0:
            return False
        fh.seek(-1, 2)
        return fh.read(1) != b"\n"
