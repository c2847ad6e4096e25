"""``omnieval compare RUN_A RUN_B ...``: a leaderboard, paired statistics per task, flipped samples.

For every pair of runs (in the order given, ``a`` before ``b``) and every task both ran:

* ``diff`` = score(b) − score(a), the task scores as each run reports them;
* ``ci95``: paired bootstrap percentile interval of the mean per-sample difference over the samples
  both runs scored (pairs resampled together);
* ``p_value``: exact McNemar test when every paired score is 0 or 1, else a sign-flip permutation test;
* Holm's step-down correction across the tasks of each pair (``multiple_comparisons`` in the JSON).

Runs made with different task versions are compared anyway, with a loud warning listing the
differences; so is a killed run (unreadable lines of ``samples.jsonl``, no ``results.json``), with a
warning saying what was left out; runs that share no sample are refused.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

from omnieval.aggregate import sample_has_score
from omnieval.aggregate.repeats import fold_repeats
from omnieval.analysis.paired import holm, paired_test
from omnieval.errors import ConfigError
from omnieval.reports.loading import RunData, load_run
from omnieval.textkit.ordering import natural_key
from omnieval.types.files import ManifestTask

__all__ = ["compare_runs", "version_differences"]

MAX_FLIPS = 50


def _scores(run: RunData) -> dict[str, dict[str, dict[str, Any]]]:
    """Per task and sample, its record; a sample's repeats fold into one with their mean score."""
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for record in run.records:
        if record.get("scored", True):
            grouped.setdefault(str(record["task"]), {}).setdefault(str(record["sample_id"]), []).append(
                record
            )
    return {task: {i: fold_repeats(rs) for i, rs in samples.items()} for task, samples in grouped.items()}


def _task_score(run: RunData, task: str) -> float | None:
    """The run's reported task score; ``None`` for a task it could not score (hidden answers), never 0."""
    block = run.typed.tasks[task]
    return None if block.scored is False else block.score


def _task_facts(run: RunData, task: str) -> dict[str, Any]:
    block = run.typed.tasks.get(task)
    manifest = run.typed_manifest.tasks.get(task, ManifestTask())
    if block is None:
        return {"version": manifest.version, "hash": manifest.hash, "metrics": None}
    set_keys = block.model_fields_set
    return {
        "version": block.version if "version" in set_keys else manifest.version,
        "hash": block.hash if "hash" in set_keys else manifest.hash,
        "metrics": block.metric_versions if "metric_versions" in set_keys else None,
    }


def version_differences(runs: list[RunData], tasks: list[str]) -> list[str]:
    """One line per task whose version, content hash or metric versions differ between runs."""
    lines = []
    for task in tasks:
        facts = {run.label: _task_facts(run, task) for run in runs if task in run.typed.tasks}
        for key in ("version", "hash", "metrics"):
            values = {label: f[key] for label, f in facts.items() if f[key] is not None}
            if len({json.dumps(v, sort_keys=True) for v in values.values()}) > 1:
                shown = ", ".join(f"{label}: {value}" for label, value in values.items())
                lines.append(f"task {task!r}: {key} differs ({shown})")
    return lines


def _spoken(record: dict[str, Any], run_dir: Path | None) -> dict[str, Any]:
    """A spoken answer's file (absolute path) beside its response, so two voices play side by side."""
    audio = record.get("audio")
    if run_dir is None or not isinstance(audio, dict) or not audio.get("path"):
        return {}
    return {"audio": str((run_dir / audio["path"]).resolve())}


def _flips(
    task: str,
    ids: list[str],
    a: dict[str, Any],
    b: dict[str, Any],
    dirs: tuple[Path | None, Path | None] = (None, None),
) -> list[dict[str, Any]]:
    """Samples whose score changed (``change: "score"``) or whose state alone changed (``change: "state"``,
    e.g. ``truncated`` → ``ok`` at the same score): two different things, counted apart. ``dirs``: the
    runs' folders, to pair spoken answers."""
    changed = []
    for sid in ids:
        ra, rb = a[sid], b[sid]
        sa, sb = float(ra.get("score") or 0.0), float(rb.get("score") or 0.0)
        if abs(sa - sb) > 1e-12 or ra.get("state") != rb.get("state"):
            changed.append(
                {
                    "task": task,
                    "sample_id": sid,
                    "delta": sb - sa,
                    "change": "score" if abs(sa - sb) > 1e-12 else "state",
                    "a": {
                        "score": sa,
                        "state": ra.get("state"),
                        "response": (ra.get("response") or "")[:600],
                        **_spoken(ra, dirs[0]),
                    },
                    "b": {
                        "score": sb,
                        "state": rb.get("state"),
                        "response": (rb.get("response") or "")[:600],
                        **_spoken(rb, dirs[1]),
                    },
                    "targets": list(ra.get("targets") or [])[:5],
                }
            )
    return sorted(changed, key=lambda f: (-abs(f["delta"]), natural_key(f["sample_id"])))


def _pair(
    task: str, run_a: RunData, run_b: RunData, recs: dict[str, dict[str, dict[str, Any]]], seed: int
) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """The pairwise entry, the flipped samples and how many shared samples were left out as ``judge_failed``
    with a judge-derived score (no verdict is not a 0)."""
    a, b = recs[run_a.label].get(task, {}), recs[run_b.label].get(task, {})
    shared = sorted(set(a) & set(b))
    key_a, key_b = (run.typed.tasks[task].score_metric for run in (run_a, run_b))
    ids = [i for i in shared if sample_has_score(a[i], key_a) and sample_has_score(b[i], key_b)]
    score_a, score_b = _task_score(run_a, task), _task_score(run_b, task)
    diff = score_b - score_a if score_a is not None and score_b is not None else None
    entry: dict[str, Any] = {
        "a": run_a.label,
        "b": run_b.label,
        "diff": diff,
        "ci95": None,
        "p_value": None,
        "test": None,
        "n_paired": len(ids),
    }
    if ids:
        test = paired_test(
            [float(a[i].get("score") or 0.0) for i in ids],
            [float(b[i].get("score") or 0.0) for i in ids],
            seed=seed,
        )
        entry.update(ci95=list(test.ci95) if test.ci95 else None, p_value=test.p_value, test=test.test)
    flips = _flips(task, shared, a, b, (run_a.run_dir, run_b.run_dir))
    return entry, flips, len(shared) - len(ids)


def compare_runs(run_dirs: list[Path], *, seed: int = 0) -> dict[str, Any]:
    """The comparison document (``compare.json``), with ``warnings`` and flipped samples."""
    if len(run_dirs) < 2:
        raise ConfigError("compare needs at least two run directories")
    runs = [load_run(Path(d)) for d in run_dirs]
    labels = [run.label for run in runs]
    if len(set(labels)) != len(labels):
        raise ConfigError(
            f"run directories must have distinct names (a run's label is its directory name): {labels}"
        )
    recs = {run.label: _scores(run) for run in runs}
    tasks = [t for t in dict.fromkeys(t for run in runs for t in run.typed.tasks)]
    shared = [t for t in tasks if sum(t in run.typed.tasks for run in runs) >= 2]
    if not shared:
        listing = "; ".join(f"{r.label}: {sorted(r.typed.tasks)}" for r in runs)
        raise ConfigError(f"the runs share no task ({listing})")
    warnings = version_differences(runs, shared) + _task_set_warnings(runs)
    warnings += [
        f"run {run.label}: {note}" for run in runs for note in run.notes
    ]  # a killed run is compared on what it kept
    doc: dict[str, Any] = {"runs": labels, "tasks": {}}
    flips: dict[str, Any] = {}
    for task in tasks:
        doc["tasks"][task] = {
            "scores": {r.label: _task_score(r, task) for r in runs if task in r.typed.tasks},
            "pairwise": [],
        }
        unscored = [label for label, score in doc["tasks"][task]["scores"].items() if score is None]
        if unscored:
            warnings.append(
                f"task {task!r}: no scored sample in {', '.join(unscored)} (hidden answers?): score null, no "
                "test"
            )
    any_overlap = False
    for run_a, run_b in combinations(runs, 2):
        key = f"{run_a.label} → {run_b.label}"
        flips[key] = {"n_flipped": {}, "n_state_changed": {}, "samples": []}
        for task in shared:
            if task not in run_a.typed.tasks or task not in run_b.typed.tasks:
                continue
            entry, task_flips, n_unjudged = _pair(task, run_a, run_b, recs, seed)
            any_overlap |= entry["n_paired"] > 0
            warnings += _pair_warnings(task, run_a.label, run_b.label, entry["n_paired"], n_unjudged, recs)
            doc["tasks"][task]["pairwise"].append(entry)
            flips[key]["n_flipped"][task] = sum(f["change"] == "score" for f in task_flips)
            flips[key]["n_state_changed"][task] = sum(f["change"] == "state" for f in task_flips)
            flips[key]["samples"].extend(task_flips[:MAX_FLIPS])
    if not any_overlap:
        raise ConfigError(f"the runs share no sample: nothing can be compared pairwise ({', '.join(labels)})")
    doc["multiple_comparisons"] = _holm(doc)
    doc["human_baseline"] = _human_baselines(runs)
    doc["flips"] = flips
    doc["warnings"] = warnings
    return doc


def _task_set_warnings(runs: list[RunData]) -> list[str]:
    """Runs over different task sets: each run's mean is over its own tasks, so the means are not
    comparable."""
    sets = {run.label: set(run.typed.tasks) for run in runs}
    everywhere = set.intersection(*sets.values())
    if all(s == everywhere for s in sets.values()):
        return []
    extra = "; ".join(
        f"{label} also ran {', '.join(sorted(s - everywhere))}" for label, s in sets.items() if s - everywhere
    )
    return [
        f"the runs cover different task sets ({extra}): each run's mean averages over its own tasks, so the "
        f"means are not comparable; compare the {len(everywhere)} shared task(s) one by one"
    ]


def _pair_warnings(
    task: str, a: str, b: str, n_paired: int, n_unjudged: int, recs: dict[str, dict[str, dict[str, Any]]]
) -> list[str]:
    """What a pair's statistics leave out: samples only one run scored, samples without a judge verdict."""
    sizes = (len(recs[a].get(task, {})), len(recs[b].get(task, {})))
    shared = n_paired + n_unjudged
    out = []
    if 0 < shared < max(sizes):
        out.append(
            f"task {task!r}: {a} and {b} share {shared} of their {sizes[0]} and {sizes[1]} scored samples: "
            "diff compares the full task scores, ci95 and the test the shared samples"
        )
    if n_unjudged:
        out.append(
            f"task {task!r}: {n_unjudged} shared sample(s) judge_failed in {a} or {b}: left out of ci95 and "
            "the test "
            "(no verdict is not a 0)"
        )
    if n_paired == 0:
        out.append(f"task {task!r}: {a} and {b} share no scored sample; no test")
    return out


def _human_baselines(runs: list[RunData]) -> dict[str, float]:
    """Human-baseline scores of the tasks that carry one in their metadata (shown as a leaderboard row)."""
    from omnieval.reports.html import human_baseline

    found: dict[str, float] = {}
    for run in runs:
        for task, block in run.typed.tasks.items():
            value = human_baseline(block.metadata)
            if value is not None:
                found.setdefault(task, value)
    return found


def _holm(doc: dict[str, Any]) -> dict[str, Any]:
    by_pair: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for task, block in doc["tasks"].items():
        for entry in block["pairwise"]:
            if entry["p_value"] is not None:
                by_pair.setdefault((entry["a"], entry["b"]), []).append((task, entry["p_value"]))
    adjusted = []
    for (a, b), items in by_pair.items():
        for (task, p), p_holm in zip(items, holm([p for _, p in items]), strict=True):
            adjusted.append(
                {
                    "a": a,
                    "b": b,
                    "task": task,
                    "p_value": p,
                    "p_holm": p_holm,
                    "significant_0.05": p_holm < 0.05,
                }
            )
    return {
        "method": "holm",
        "statement": "p-values are adjusted with Holm's step-down method across the tasks of each pair of "
        "runs "
        "(family-wise error rate 0.05); p_value in 'tasks' is unadjusted.",
        "adjusted": adjusted,
    }
