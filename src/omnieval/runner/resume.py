"""What an output directory already holds: the samples a resumed run must not request again."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from omnieval.errors import ConfigError, NotResumable, StoreError
from omnieval.runner.config import RunConfig
from omnieval.sources import Task
from omnieval.store import rewrite_lines, scan_keys

__all__ = ["DoneIndex", "check_resumable", "load_done"]


@dataclass
class DoneIndex:
    """Finished sample ids per task (with the repeat index under repeated sampling), plus earlier
    answers of chain steps (their history)."""

    ids: dict[str, set[str | tuple[str, int]]] = field(default_factory=dict)
    chain_answers: dict[tuple[str, str | tuple[str, int]], str] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)

    def has(self, task: str, sample_id: str, repeat: int | None = None) -> bool:
        return _key(sample_id, repeat) in self.ids.get(task, ())

    def has_any(self, task: str, sample_id: str) -> bool:
        """Whether any record (any repeat) of the sample is stored."""
        ids = self.ids.get(task, ())
        return sample_id in ids or any(isinstance(k, tuple) and k[0] == sample_id for k in ids)

    def response(self, task: str, sample_id: str, repeat: int | None = None) -> str | None:
        if not self.has(task, sample_id, repeat):
            return None
        return self.chain_answers.get((task, _key(sample_id, repeat)), "")

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
        index.ids.setdefault(key.task, set()).add(_key(key.sample_id, key.repeat))
        index.counts[key.task] += 1
        if key.chain_answer is not None:
            index.chain_answers[(key.task, _key(key.sample_id, key.repeat))] = key.chain_answer
    return index


def _key(sample_id: str, repeat: int | None) -> str | tuple[str, int]:
    return sample_id if repeat is None else (sample_id, repeat)


def _has_partial_tail(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(0, 2)
        if fh.tell() == 0:
            return False
        fh.seek(-1, 2)
        return fh.read(1) != b"\n"


_SAME = ("model", "generation", "seed", "blind", "strict_metrics", "repeats")
"""Settings that change what a finished sample means: resuming under other values would mix two runs."""


def check_resumable(config: RunConfig, tasks: list[Task]) -> None:
    """Refuse to resume an output directory that holds a different run (never mix two runs silently)."""
    manifest_path = config.output / "manifest.json"
    if not manifest_path.exists() or not (config.output / "samples.jsonl").exists():
        return
    from omnieval.types.files import ManifestFile, load_file

    try:
        old: ManifestFile = load_file(manifest_path, ManifestFile)
    except StoreError as exc:  # unreadable, not a manifest, or a version this omnieval does not read
        raise ConfigError(f"{exc}; use a new --output directory") from None
    new = config.model_dump(mode="json")
    changed = [key for key in _SAME if old.config.get(key) != new.get(key)]
    old_judge = (old.config.get("judge") or {}).get("model")
    new_judge = config.judge.model if config.judge is not None else None
    if old_judge != new_judge:  # judged and unjudged (or differently judged) samples must not mix
        changed.append(
            f"judge ({old_judge or 'none'} → {new_judge or 'none'}; `omnieval rejudge DIR --judge SPEC` "
            "re-judges)"
        )
    old_tasks = old.tasks
    changed += [
        f"task {t.name} (definition changed)"
        for t in tasks
        if t.name in old_tasks and old_tasks[t.name].hash != t.content_hash
    ]
    if changed:
        raise NotResumable(
            f"{config.output} holds a run with different {', '.join(changed)}; resuming would mix two runs. "
            "Use another --output directory, or `omnieval score DIR` to re-score stored responses."
        )
