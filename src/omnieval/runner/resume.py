"""What an output directory already holds: the samples a resumed run must not request again."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omnieval.errors import ConfigError, NotResumable, StoreError
from omnieval.runner.config import RunConfig
from omnieval.sources import Task
from omnieval.store import rewrite_lines, scan_keys

__all__ = [
    "SAME_MEANING",
    "SAME_SELECTION",
    "DoneIndex",
    "check_resumable",
    "load_done",
    "remove_if_unrecorded",
    "run_setting_differences",
    "with_folder_tasks",
]


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


_SET_UP = ("manifest.json", "samples.jsonl", "cache.sqlite", "judge_cache.sqlite", "media_cache")
"""What a run writes into its folder before its first record (the caches' ``-wal``/``-shm`` files too)."""


def remove_if_unrecorded(output: Path) -> None:
    """Remove a folder this run created when it failed before recording any sample: a failed first run
    leaves nothing behind. A folder holding anything more is kept: records (they resume), a provider
    batch's ledger (its batches are polled, never paid for twice), a file of the user's."""
    records = output / "samples.jsonl"
    if records.exists() and records.stat().st_size > 0:
        return
    if any(not entry.name.startswith(_SET_UP) for entry in output.iterdir()):
        return
    import shutil

    shutil.rmtree(output, ignore_errors=True)


def _key(sample_id: str, repeat: int | None) -> str | tuple[str, int]:
    return sample_id if repeat is None else (sample_id, repeat)


def _has_partial_tail(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(0, 2)
        if fh.tell() == 0:
            return False
        fh.seek(-1, 2)
        return fh.read(1) != b"\n"


SAME_MEANING = (
    "model",
    "generation",
    "seed",
    "blind",
    "strict_metrics",
    "repeats",
    "reasoning_effort",
    "reasoning_budget",
)
"""Settings that change what a finished sample means: resuming under other values would mix two runs."""

SAME_SELECTION = ("limit", "sample_ids")
"""Settings that pick which samples of a task run: a run that adds tasks to a folder must share them, or the
folder's earlier tasks would be extended (or cut) behind the user's back."""


def run_setting_differences(
    old: Mapping[str, Any], new: Mapping[str, Any], *, keys: tuple[str, ...] = SAME_MEANING
) -> list[str]:
    """What differs between two runs' recorded configurations (``manifest.json``'s ``config``) in the
    settings that change what a sample means, each as ``KEY (OLD → NEW)`` (a mapping setting per changed
    key, ``generation.temperature (0.0 → 0.9)``); the judge's model is one of them. Empty: the runs' samples
    can share one folder (resume, added tasks, merged shards)."""
    changed: list[str] = []
    for key in keys:
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        if isinstance(before, Mapping) and isinstance(after, Mapping):
            changed += [
                f"{key}.{sub} ({_shown(before.get(sub))} → {_shown(after.get(sub))})"
                for sub in sorted({*before, *after})
                if before.get(sub) != after.get(sub)
            ]
        else:
            changed.append(f"{key} ({_shown(before)} → {_shown(after)})")
    old_judge = (old.get("judge") or {}).get("model")
    new_judge = (new.get("judge") or {}).get("model")
    if old_judge != new_judge:  # judged and unjudged (or differently judged) samples must not mix
        changed.append(
            f"judge ({old_judge or 'none'} → {new_judge or 'none'}; `omnieval rejudge DIR --judge SPEC` "
            "re-judges)"
        )
    return changed


def _shown(value: Any) -> str:
    return "none" if value is None else str(value)


def _recorded_run(config: RunConfig) -> Any:
    """The folder's manifest when it holds records of an earlier run (``None`` for a fresh folder)."""
    manifest_path = config.output / "manifest.json"
    if not manifest_path.exists() or not (config.output / "samples.jsonl").exists():
        return None
    from omnieval.types.files import ManifestFile, load_file

    try:
        return load_file(manifest_path, ManifestFile)
    except StoreError as exc:  # unreadable, not a manifest, or a version this omnieval does not read
        raise ConfigError(f"{exc}; use a new --output directory") from None


def check_resumable(config: RunConfig, tasks: list[Task]) -> None:
    """Refuse to resume an output directory that holds a different run (never mix two runs silently)."""
    old = _recorded_run(config)
    if old is None:
        return
    changed = run_setting_differences(old.config, config.model_dump(mode="json"))
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


def with_folder_tasks(config: RunConfig) -> RunConfig:
    """``config`` with the tasks its output folder already holds kept in it: a second run into the folder
    with the same model and settings but other tasks adds its tasks to the folder's results and report
    (its ``--tasks`` alone would hide the first run's, whose records stay). Other settings are refused by
    :func:`check_resumable`, naming both values."""
    old = _recorded_run(config)
    if old is None:
        return config
    before, now = _pieces(old.config.get("tasks") or ()), _pieces(config.tasks)
    others = [ref for ref in before if ref not in now]
    if not others:  # the same tasks (or more): a plain resume, nothing resolved twice
        return config
    from omnieval.runner.resolve import resolve_tasks

    new_names = {t.name for t in resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)}
    kept = [ref for ref in others if not _names_of(ref, config) & new_names]
    if not kept:
        return config
    new = config.model_dump(mode="json")
    changed = run_setting_differences(old.config, new) + run_setting_differences(
        old.config, new, keys=SAME_SELECTION
    )
    if changed:
        raise NotResumable(
            f"{config.output} holds a run of {', '.join(sorted(old.tasks))} with different "
            f"{', '.join(changed)}; adding tasks to it would mix two runs. Use another --output directory."
        )
    print(
        f"[omnieval] {config.output} already holds {', '.join(kept)} of the same model and settings: "
        "kept in its results and report beside this run's tasks",
        file=sys.stderr,
    )
    order = [p for p in before if p in kept or p in now] + [p for p in now if p not in before]
    return config.model_copy(update={"tasks": tuple(order)})  # the folder's order: a re-run is a no-op


def _pieces(refs: Any) -> list[str]:
    """Task references one by one (a ``--tasks`` entry may hold several, comma-separated)."""
    return [p.strip() for raw in refs for p in str(raw).split(",") if p.strip()]


def _names_of(ref: str, config: RunConfig) -> set[str]:
    """The task names an earlier run's reference resolves to; an unresolvable one fails naming itself."""
    from omnieval.runner.resolve import resolve_tasks

    try:
        return {t.name for t in resolve_tasks([ref], strict_metrics=config.strict_metrics)}
    except Exception as exc:
        raise ConfigError(
            f"{config.output} holds an earlier run of task {ref!r}, which cannot be read any more ({exc}); "
            "use another --output directory"
        ) from None
