"""Domain sub-scores from a run's stored records (UniScienceVQA domains, ruHHH categories, ...).

A sample's domain is ``metadata.domain`` (set by the importer from the task's ``domain_field``).
For ruHHH the sub-score is Group EM inside the domain: a group counts 1 only if all its pairs do.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from omnieval.benchmarks.mera.catalog import find_task
from omnieval.submission.runs import latest_by_record
from omnieval.types import SampleResult

__all__ = ["domain_scores"]

_ONE = 1.0 - 1e-9


def _task_domains(records: list[SampleResult], *, grouped: bool) -> dict[str, dict[str, float]]:
    by_domain: dict[str, list[SampleResult]] = defaultdict(list)
    for record in records:
        if record.scored:
            by_domain[str(record.metadata.get("domain"))].append(record)
    out: dict[str, dict[str, float]] = {}
    for domain, items in sorted(by_domain.items()):
        if grouped:
            groups: dict[tuple[str, int | None], bool] = {}
            for r in items:
                group = str(r.metadata.get("mera_group", r.sample_id))
                key = (group, r.repeat)  # a group counts within one repeat
                groups[key] = groups.get(key, True) and r.score >= _ONE
            score = sum(groups.values()) / len(groups)
        else:
            score = sum(r.score for r in items) / len(items)
        out[domain] = {"score": score, "n": float(len({r.sample_id for r in items}))}  # samples
    return out


def domain_scores(run_dir: Path) -> dict[str, dict[str, dict[str, float]]]:
    """``task -> domain -> {"score", "n"}`` for the MERA tasks of a run that have domains."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, records in latest_by_record(run_dir).items():  # every repeat counts, as in the task score
        task = find_task(name)
        if task is None or task.domain_field is None:
            continue
        domains = _task_domains(list(records.values()), grouped=task.group_field is not None)
        if domains:
            out[task.name] = domains
    return out
