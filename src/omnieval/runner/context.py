"""Per-task state the runner needs while a task runs."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from omnieval.runner.scoring import Scorer
from omnieval.sources import Task
from omnieval.types import GenerationConfig, MediaPolicy, Sample, SampleResult
from omnieval.types.request import Reasoning

__all__ = ["TaskContext", "pick_demos"]


@dataclass
class TaskContext:
    """A task bound for one run: scorer, effective parameters, demo pool and live counts."""

    task: Task
    scorer: Scorer
    generation: GenerationConfig
    media_policy: MediaPolicy
    demo_pool: list[Sample] = field(default_factory=list)
    states: Counter[str] = field(default_factory=Counter)
    total: int | None = None
    """Records the task will hold when finished (samples × repeats)."""
    repeats: int | None = None
    """Answers per sample; ``None``: one, recorded without a repeat index."""
    reasoning: Reasoning | None = None
    """The run's reasoning controls, set on every request."""

    @property
    def name(self) -> str:
        return self.task.name

    @property
    def repeat_indices(self) -> tuple[int | None, ...]:
        return (None,) if self.repeats is None else tuple(range(self.repeats))

    def generation_at(self, repeat: int | None) -> GenerationConfig:
        """Repeat ``r`` samples with seed ``base + r`` (base: the task's generation seed, else 0), so
        every repeat is a distinct request (and cache entry) and a rerun draws the same answers."""
        if not repeat:
            return self.generation
        return self.generation.model_copy(update={"seed": (self.generation.seed or 0) + repeat})

    def count(self, result: SampleResult) -> None:
        self.states[result.state] += 1


def pick_demos(pool: list[Sample], *, n: int, sample_id: str, seed: int) -> list[Sample]:
    """``n`` demonstrations for one sample, seeded by the sample id, never the sample itself."""
    if n <= 0 or not pool:
        return []
    candidates = [d for d in pool if d.id != sample_id]
    rng = random.Random(f"{seed}:{sample_id}")
    return rng.sample(candidates, min(n, len(candidates)))
