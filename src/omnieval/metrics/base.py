"""The metric and aggregation registries.

A metric is a pure function ``(inp: ScoringInput, **options) -> float | dict[str, float]``; a dict
reports several named values at once (e.g. RuSLUn's ``intent_em`` and ``slot_f1``). A metric that
returns a dict declares its result keys (``outputs=``) so that a sample in a non-ok state gets 0
under *every* key, not only under the reference's key (otherwise the other keys' means would skip
the failed samples). Every value must lie in [0, 1]. An aggregation turns per-sample values into
one task value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omnieval.errors import MetricError
from omnieval.registry import Registry, check_options
from omnieval.types import MetricRef, SampleResult, ScoringInput

__all__ = [
    "Aggregation",
    "BoundMetric",
    "GroupCounter",
    "MetricDef",
    "aggregations",
    "bind_metric",
    "metrics",
    "register_aggregation",
    "register_metric",
]

MetricFn = Callable[..., "float | dict[str, float]"]


@dataclass(frozen=True)
class MetricDef:
    """A registered metric: the function plus facts reports and manifests need."""

    name: str
    fn: MetricFn
    version: str = "1"
    higher_is_better: bool = True
    description: str = ""
    outputs: tuple[str, ...] = ()
    """Result keys of a dict-returning metric: always present, all set to 0 on a non-ok sample.
    A metric may add further per-sample diagnostics (MEGA-Bench's per-field scores) beyond these."""


Aggregation = Callable[..., float]
"""``(values, results, **options) -> float`` over the scored samples of one task."""

GroupCounter = Callable[..., "tuple[int, int]"]
"""``(values, results, **options) -> (groups counted, groups left out)`` of an aggregation over groups."""

metrics: Registry[MetricDef] = Registry("metric", group="omnieval.metrics")
aggregations: Registry[Aggregation] = Registry("aggregation", group="omnieval.aggregations")
_group_counters: dict[str, GroupCounter] = {}


def register_metric(
    name: str, *, version: str = "1", higher_is_better: bool = True, outputs: tuple[str, ...] = ()
) -> Callable[[MetricFn], MetricFn]:
    """Register ``fn`` as metric ``name``; the docstring's first line becomes its description.

    ``outputs``: the keys of a metric that returns a dict (see :attr:`MetricDef.outputs`).
    """

    def decorate(fn: MetricFn) -> MetricFn:
        doc = (fn.__doc__ or "").strip().splitlines()
        metrics.add(
            name, MetricDef(name, fn, version, higher_is_better, doc[0] if doc else "", tuple(outputs))
        )
        return fn

    return decorate


def register_aggregation(
    name: str, *, groups: GroupCounter | None = None
) -> Callable[[Aggregation], Aggregation]:
    """Register a task-level aggregation; ``groups`` counts the groups an aggregation over groups kept
    and left out (a group holding a sample with no value), so results can say how many were counted."""
    if groups is not None:
        _group_counters[name] = groups
    return aggregations.register(name)


@dataclass(frozen=True)
class BoundMetric:
    """A metric reference resolved against the registry, options checked."""

    ref: MetricRef
    definition: MetricDef
    aggregation: Aggregation

    @property
    def keys(self) -> tuple[str, ...]:
        """Result keys this metric always reports (zero-filled on a non-ok sample)."""
        return self.definition.outputs or (self.ref.key,)

    def __call__(self, inp: ScoringInput) -> dict[str, float]:
        value = self.definition.fn(inp, **self.ref.options)
        if isinstance(value, dict):
            missing = [k for k in self.definition.outputs if k not in value]
            if missing:
                raise MetricError(f"metric {self.ref.name!r} did not return its declared output(s) {missing}")
            return {k: float(v) for k, v in value.items()}
        return {self.ref.key: float(value)}

    def aggregate(self, values: Sequence[float], results: Sequence[SampleResult]) -> float:
        return float(self.aggregation(values, results, **self.ref.aggregate_options))

    def group_counts(
        self, values: Sequence[float], results: Sequence[SampleResult]
    ) -> tuple[int, int] | None:
        """(groups counted, groups left out) of an aggregation over groups; ``None`` for any other."""
        counter = _group_counters.get(self.ref.aggregate)
        return None if counter is None else counter(values, results, **self.ref.aggregate_options)


def bind_metric(ref: MetricRef) -> BoundMetric:
    """Resolve a metric reference (unknown names and options fail here, at validation time)."""
    definition = metrics.get(ref.name)
    check_options(definition.fn, ref.options, what=f"metric {ref.name!r}", n_positional=1)
    aggregation = aggregations.get(ref.aggregate)
    check_options(aggregation, ref.aggregate_options, what=f"aggregation {ref.aggregate!r}", n_positional=2)
    return BoundMetric(ref, definition, aggregation)
