"""MARKER's item "Simplicity": the share of models that answer an item correctly (article §3.1).

The article's formula was an image and is lost; this module implements the reconstruction in the
engineering note and says so in its output:

* ``simplicity(q) = mean over models m of c_m(q)``, where ``c_m(q)`` is model m's value on item q
  (for CircularEval items: the mean over the item's rotations);
* ``weighted(q) = Σ_m acc_m · c_m(q) / Σ_m acc_m`` with ``acc_m`` model m's mean value over all items
  ("each model's mean accuracy weights its answers"; unweighted when every ``acc_m`` is 0);
* ``chance_corrected(q) = clip((weighted − 1/K) / (1 − 1/K), 0, 1)`` for an item with K options
  (K from ``metadata.n_options`` or the number of rotations), so 2- and 5-option items compare.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omnieval.errors import StoreError
from omnieval.store.records import typed_records
from omnieval.types import SampleResult
from omnieval.types.files import ManifestFile, load_file

__all__ = ["FORMULA", "ItemStat", "ModelRun", "load_run", "rank_items"]

FORMULA = (
    "simplicity = mean_m c_m(q); weighted = sum_m acc_m*c_m(q) / sum_m acc_m; "
    "chance_corrected = clip((weighted - 1/K) / (1 - 1/K), 0, 1); c_m(q) averages CircularEval rotations"
)


@dataclass(frozen=True)
class ModelRun:
    """One model's per-item values and answers on one task."""

    model: str
    values: dict[str, float]
    n_options: dict[str, int | None]
    answers: dict[str, str] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        return sum(self.values.values()) / len(self.values) if self.values else 0.0


@dataclass(frozen=True)
class ItemStat:
    """Simplicity of one item across models (1 = every model right, 0 = none)."""

    item: str
    simplicity: float
    weighted: float
    chance_corrected: float | None
    n_options: int | None
    per_model: dict[str, float]
    answers: dict[str, str]


def _value(record: SampleResult, metric: str | None, where: str) -> float:
    if metric is None:
        return record.score
    if metric not in record.metrics:
        raise StoreError(
            f"{where}: sample {record.sample_id!r} has no metric {metric!r} (has {sorted(record.metrics)})"
        )
    return record.metrics[metric]


def load_run(run_dir: Path, *, task: str, metric: str | None = None) -> ModelRun:
    """Read one run directory's records of ``task``; the last record of a sample (of each of its repeats)
    wins (resumes). With repeats, c_m(q) averages the item's repeats too (as its rotations)."""
    samples = Path(run_dir) / "samples.jsonl"
    if not samples.exists():
        raise StoreError(f"{run_dir}: no samples.jsonl (not a run directory)")
    manifest = Path(run_dir) / "manifest.json"
    model = (
        str(load_file(manifest, ManifestFile).config.get("model"))
        if manifest.exists()
        else Path(run_dir).name
    )
    latest = {(r.sample_id, r.repeat): r for r in typed_records(samples) if r.task == task and r.scored}
    if not latest:
        raise StoreError(f"{run_dir}: no scored samples of task {task!r}")
    groups: dict[str, list[float]] = defaultdict(list)
    meta: dict[str, dict[str, Any]] = {}
    answers: dict[str, list[str]] = defaultdict(list)
    rotations: dict[str, set[str]] = defaultdict(set)
    for (sample_id, _), record in latest.items():
        metadata = record.metadata
        item = str(metadata.get("circular_group", sample_id))
        groups[item].append(_value(record, metric, str(run_dir)))
        rotations[item].add(sample_id)
        meta.setdefault(item, metadata)
        answers[item].append(record.response or "")
    values = {item: sum(v) / len(v) for item, v in groups.items()}
    n_options = {item: _options(meta[item], len(rotations[item])) for item in groups}
    return ModelRun(model, values, n_options, {item: " | ".join(a) for item, a in answers.items()})


def _options(metadata: dict[str, Any], n_rotations: int) -> int | None:
    if isinstance(metadata.get("n_options"), int):
        return int(metadata["n_options"])
    return n_rotations if "circular_group" in metadata else None


def _chance(weighted: float, k: int | None) -> float | None:
    if k is None or k < 2:
        return None
    return min(1.0, max(0.0, (weighted - 1 / k) / (1 - 1 / k)))


def rank_items(runs: list[ModelRun]) -> list[ItemStat]:
    """Every item's simplicity over the models that answered it, hardest first."""
    items = sorted({item for run in runs for item in run.values})
    stats = []
    for item in items:
        present = [run for run in runs if item in run.values]
        per_model = {run.model: run.values[item] for run in present}
        plain = sum(per_model.values()) / len(present)
        total = sum(run.accuracy for run in present)
        weighted = sum(run.accuracy * run.values[item] for run in present) / total if total > 0 else plain
        k = next((run.n_options[item] for run in present if run.n_options.get(item)), None)
        answers = {run.model: run.answers.get(item, "") for run in present}
        stats.append(ItemStat(item, plain, weighted, _chance(weighted, k), k, per_model, answers))
    return sorted(stats, key=lambda s: (s.weighted, s.simplicity, s.item))
