"""The constraint-aware, seeded sampler: slot spaces → Yes/No pools → balanced instance plans.

Each template's slot space is enumerated in full (the largest has a few thousand configurations),
filtered by its constraints, and split by its Yes rule. Per-task quotas are spread over templates by
weight (largest remainder); each template gets half Yes and half No, and templates with an odd quota
alternate the extra Yes so every task is balanced exactly. Pools are drawn without replacement
(variants interleaved); a quota larger than its pool cycles through it again, and those instances are
marked ``repeat``.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any

from omnieval.benchmarks.art.expr import Ambiguous
from omnieval.benchmarks.art.spec import ArtSpec, Template
from omnieval.errors import SourceError

__all__ = [
    "ART_H_SIZE",
    "Planned",
    "Pools",
    "allocate",
    "art_h_subset",
    "check_satisfiable",
    "plan_task",
    "pools",
]


@dataclass(frozen=True)
class Planned:
    """One instance before rendering: which template, which slot values, which answer."""

    task: str
    template: str
    variant: str
    values: dict[str, Any]
    answer: str
    repeat: bool


Pools = dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]]
"""variant id → (Yes configurations, No configurations), in enumeration order."""


_CACHE: dict[tuple[str, tuple[str, ...]], Pools] = {}


def pools(template: Template, spec: ArtSpec) -> Pools:
    """Every variant's slot space under its constraints, split by the Yes rule (cached per process)."""
    key = (template.id, spec.crli_languages)
    if key not in _CACHE:
        _CACHE[key] = _enumerate(template, spec)
    return _CACHE[key]


def _enumerate(template: Template, spec: ArtSpec) -> Pools:
    lookups = spec.lookups()
    out: Pools = {}
    for variant in template.variants:
        yes: list[dict[str, Any]] = []
        no: list[dict[str, Any]] = []
        names = [name for name, _ in variant.slots]
        for combo in itertools.product(*(domain for _, domain in variant.slots)):
            values = dict(zip(names, combo, strict=True))
            try:
                if not all(rule(values, lookups) for rule in variant.where):
                    continue
                (yes if variant.yes(values, lookups) else no).append(values)
            except Ambiguous:
                continue
        out[variant.id] = (yes, no)
    return out


def allocate(total: int, weights: list[float], rng: random.Random) -> list[int]:
    """Split ``total`` by ``weights`` (largest remainder; ties broken in a seeded order)."""
    if total <= 0:
        return [0] * len(weights)
    scale = total / sum(weights)
    exact = [w * scale for w in weights]
    counts = [int(x) for x in exact]
    order = list(range(len(weights)))
    rng.shuffle(order)
    order.sort(key=lambda i: exact[i] - counts[i], reverse=True)
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def _draw(
    per_variant: list[tuple[str, list[dict[str, Any]]]], k: int, rng: random.Random
) -> list[tuple[str, dict[str, Any], bool]]:
    """``k`` configurations, variants interleaved; cycles (marked repeat) when the pool is too small."""
    out: list[tuple[str, dict[str, Any], bool]] = []
    cycle = 0
    while len(out) < k:
        shuffled = [(vid, rng.sample(items, len(items))) for vid, items in per_variant if items]
        rng.shuffle(shuffled)
        interleaved = [
            (vid, items[i])
            for i in range(max(len(x) for _, x in shuffled))
            for vid, items in shuffled
            if i < len(items)
        ]
        out += [(vid, values, cycle > 0) for vid, values in interleaved[: k - len(out)]]
        cycle += 1
    return out


def _yes_counts(quotas: list[int], rng: random.Random) -> list[int]:
    """Half of each quota; templates with an odd quota alternate the extra Yes (exact task balance)."""
    odd = [i for i, q in enumerate(quotas) if q % 2]
    rng.shuffle(odd)
    extra_yes = set(odd[: (len(odd) + rng.randrange(2)) // 2]) if len(odd) % 2 else set(odd[: len(odd) // 2])
    return [q // 2 + (1 if i in extra_yes else 0) for i, q in enumerate(quotas)]


def plan_task(
    spec: ArtSpec, task: str, *, seed: int, total: int | None = None, per_template: int | None = None
) -> list[Planned]:
    """The balanced, shuffled instance plan of one task (no audio yet)."""
    rng = random.Random(f"art:{seed}:{task}")
    templates = spec.templates[task]
    if per_template is not None:
        quotas = [per_template] * len(templates)
    else:
        quotas = allocate(total or 0, [t.weight for t in templates], rng)
    planned: list[Planned] = []
    for template, quota, n_yes in zip(templates, quotas, _yes_counts(quotas, rng), strict=True):
        if quota == 0:
            continue
        found = pools(template, spec)
        for answer, k, idx in (("Yes", n_yes, 0), ("No", quota - n_yes, 1)):
            per_variant = [(vid, pair[idx]) for vid, pair in found.items()]
            if k and not any(items for _, items in per_variant):
                raise SourceError(
                    f"art: template {template.id} has no {answer!r} configuration under its constraints "
                    f"(tasks/{task}.yaml); it cannot be balanced"
                )
            planned += [
                Planned(task, template.id, vid, values, answer, repeat)
                for vid, values, repeat in _draw(per_variant, k, rng)
            ]
    rng.shuffle(planned)
    return planned


def check_satisfiable(spec: ArtSpec, tasks: list[str]) -> None:
    """Every template must have both Yes and No configurations (checked before any audio is made)."""
    for task in tasks:
        for template in spec.templates[task]:
            found = pools(template, spec)
            for answer, idx in (("Yes", 0), ("No", 1)):
                if not any(pair[idx] for pair in found.values()):
                    raise SourceError(
                        f"art: template {template.id} has no {answer!r} configuration under its "
                        f"constraints (tasks/{task}.yaml)"
                    )


ART_H_SIZE = 24
"""The paper's human-checkable subset: 24 instances per task, 12 Yes / 12 No."""


def art_h_subset(plan: list[Planned], spec: ArtSpec, task: str, *, seed: int) -> set[int]:
    """Positions in ``plan`` of its ART-H subset, spread over templates by weight (distinct items first)."""
    if len(plan) <= ART_H_SIZE:
        return set(range(len(plan)))
    rng = random.Random(f"art-h:{seed}:{task}")
    templates = spec.templates[task]
    quotas = allocate(ART_H_SIZE, [t.weight for t in templates], rng)
    chosen: set[int] = set()
    for template, quota, n_yes in zip(templates, quotas, _yes_counts(quotas, rng), strict=True):
        for answer, k in (("Yes", n_yes), ("No", quota - n_yes)):
            mine = [i for i, p in enumerate(plan) if p.template == template.id and p.answer == answer]
            chosen.update(sorted(mine, key=lambda i: plan[i].repeat)[:k])
    return chosen
