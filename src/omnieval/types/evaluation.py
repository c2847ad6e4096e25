"""What the public API returns (:mod:`omnieval.api`): a run's typed results with its samples, a
comparison of runs. ``results.json`` itself is :class:`~omnieval.types.files.ResultsFile`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, PrivateAttr

from omnieval.types._base import Frozen
from omnieval.types.files import ResultsFile, TaskResults
from omnieval.types.result import SampleResult

__all__ = [
    "AdjustedPValue",
    "Comparison",
    "EvalResults",
    "FlipSide",
    "FlippedSample",
    "MultipleComparisons",
    "PairFlips",
    "PairwiseResult",
    "TaskComparison",
]


class EvalResults(Frozen):
    """What :func:`omnieval.evaluate`, :func:`omnieval.score`, :func:`omnieval.rejudge` and
    :func:`omnieval.load_results` return: the run's ``results.json``, typed, and its samples."""

    results: ResultsFile
    run_dir: Path | None = None
    """``None`` for an in-memory run (``output=None``)."""
    failure: str | None = None
    """Why ``omnieval run`` would exit 3 (error-rate policy), or ``None``."""
    unknown_sample_ids: tuple[str, ...] = ()
    """``sample_ids`` that no task has (they were not run)."""
    _samples: tuple[SampleResult, ...] | None = PrivateAttr(default=None)
    _read_samples: Callable[[], Iterable[SampleResult]] | None = PrivateAttr(default=None)

    @classmethod
    def of(
        cls,
        *,
        samples: Iterable[SampleResult] | None = None,
        read_samples: Callable[[], Iterable[SampleResult]] | None = None,
        **fields: Any,
    ) -> EvalResults:
        """The results with their ``samples`` given, or read by ``read_samples()`` when first asked for."""
        made = cls(**fields)
        made._samples = tuple(samples) if samples is not None else None
        made._read_samples = read_samples
        return made

    @property
    def samples(self) -> tuple[SampleResult, ...]:
        """Every record of ``samples.jsonl``: an in-memory run's were read before its folder was removed;
        a run directory's are read from it when first asked for (a large run's caller that wants only the
        scores, ``omnieval run`` itself, never holds them all)."""
        if self._samples is None:
            self._samples = tuple(self._read_samples()) if self._read_samples is not None else ()
        return self._samples

    def __eq__(self, other: object) -> bool:
        """Equal fields and equal samples (whether or not either has read its samples yet)."""
        if not isinstance(other, EvalResults):
            return NotImplemented
        return self.__dict__ == other.__dict__ and self.samples == other.samples

    __hash__ = None  # type: ignore[assignment]

    @property
    def tasks(self) -> dict[str, TaskResults]:
        """Per task: score, ci95, states, metrics."""
        return self.results.tasks

    @property
    def model(self) -> str:
        return self.results.model

    @property
    def states(self) -> dict[str, int]:
        """Samples per end state over all tasks."""
        return self.results.states

    def to_dict(self) -> dict[str, Any]:
        """results.json as written (the keys that were set, in the file's order)."""
        return self.results.document()


class PairwiseResult(Frozen):
    """Run ``b`` against run ``a`` on one task."""

    a: str
    b: str
    diff: float | None
    """score(b) − score(a), the task scores as each run reports them."""
    ci95: tuple[float, float] | None
    """Paired bootstrap interval of the mean per-sample difference over the samples both runs scored."""
    p_value: float | None
    test: str | None
    n_paired: int


class TaskComparison(Frozen):
    scores: dict[str, float | None]
    """Per run label: its task score (``None``: nothing scored)."""
    pairwise: tuple[PairwiseResult, ...]


class AdjustedPValue(Frozen):
    a: str
    b: str
    task: str
    p_value: float
    p_holm: float
    significant_0_05: bool = Field(alias="significant_0.05")


class MultipleComparisons(Frozen):
    method: str
    statement: str
    adjusted: tuple[AdjustedPValue, ...]


class FlipSide(Frozen):
    score: float
    state: str | None
    response: str
    audio: str | None = None
    """A spoken answer's file (absolute path), so the comparison page plays both voices."""


class FlippedSample(Frozen):
    task: str
    sample_id: str
    delta: float
    change: Literal["score", "state"]
    a: FlipSide
    b: FlipSide
    targets: tuple[Any, ...]


class PairFlips(Frozen):
    n_flipped: dict[str, int]
    n_state_changed: dict[str, int]
    samples: tuple[FlippedSample, ...]


class Comparison(Frozen):
    """What :func:`omnieval.compare` returns (``compare.json``): scores and paired statistics per task,
    Holm-adjusted p-values, flipped samples per pair of runs (``"A → B"``) and the warnings."""

    runs: tuple[str, ...]
    tasks: dict[str, TaskComparison]
    multiple_comparisons: MultipleComparisons
    human_baseline: dict[str, float]
    flips: dict[str, PairFlips]
    warnings: tuple[str, ...]
