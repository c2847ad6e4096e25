"""MARKER's image-necessity review: which items can be answered without their picture?

The article drops geometry items whose figure only illustrates the text. Here that is measured:
each model is run twice on a task, with media and ``--blind`` (media removed). Per item the media
score and the blind score are averaged over models; an item whose blind score reaches
``threshold`` is flagged as answerable from the text alone (for multiple choice keep the threshold
well above chance, 1/K).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from omnieval.benchmarks.marker.simplicity import ModelRun, load_run
from omnieval.errors import StoreError
from omnieval.types.files import ManifestFile, ResultsFile, load_file

__all__ = ["NecessityStat", "is_blind", "load_runs", "review"]


@dataclass(frozen=True)
class NecessityStat:
    """One item's media and blind scores, averaged over the models that ran it."""

    item: str
    media: float | None
    blind: float | None
    gap: float | None
    flagged: bool
    media_models: int
    blind_models: int


def is_blind(run_dir: Path) -> bool:
    """Whether a run directory holds a blind (text-only) run, from its results or manifest."""
    results, manifest = Path(run_dir) / "results.json", Path(run_dir) / "manifest.json"
    if results.is_file():
        typed = load_file(results, ResultsFile)
        if "blind" in typed.model_fields_set:
            return typed.blind
    if manifest.is_file():
        value = load_file(manifest, ManifestFile).config.get("blind")
        if isinstance(value, bool):
            return value
    raise StoreError(f"{run_dir}: neither results.json nor manifest.json says whether the run was blind")


def load_runs(
    run_dirs: list[Path], *, task: str, metric: str | None = None
) -> tuple[list[ModelRun], list[ModelRun]]:
    """(media runs, blind runs) of ``task``."""
    media: list[ModelRun] = []
    blind: list[ModelRun] = []
    for run in run_dirs:
        (blind if is_blind(run) else media).append(load_run(run, task=task, metric=metric))
    if not media or not blind:
        raise StoreError(
            f"need at least one media run and one --blind run of task {task!r} "
            f"(got {len(media)} media, {len(blind)} blind)"
        )
    return media, blind


def _mean(runs: list[ModelRun], item: str) -> tuple[float | None, int]:
    values = [r.values[item] for r in runs if item in r.values]
    return (sum(values) / len(values) if values else None), len(values)


def review(media: list[ModelRun], blind: list[ModelRun], *, threshold: float = 0.5) -> list[NecessityStat]:
    """Every item's blind-vs-media score; flagged items first, most text-answerable first."""
    if not 0 < threshold <= 1:
        raise StoreError(f"threshold must be in (0, 1], got {threshold}")
    items = sorted({i for r in media + blind for i in r.values})
    out = []
    for item in items:
        with_media, n_media = _mean(media, item)
        without, n_blind = _mean(blind, item)
        gap = None if with_media is None or without is None else with_media - without
        out.append(
            NecessityStat(
                item, with_media, without, gap, without is not None and without >= threshold, n_media, n_blind
            )
        )
    return sorted(out, key=lambda s: (not s.flagged, -(s.blind or 0.0), s.item))
