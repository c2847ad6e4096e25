"""``omnieval sweep``: many models × the same tasks, one run directory per model, one leaderboard.

The sweep is a list of ordinary runs: each model's run directory resumes on its own, so running the
same sweep again computes only what is missing and rebuilds the board from every ``results.json``.
On Ray several models run at once (:func:`sweep_shape` splits the cluster's worker slots among them;
:mod:`omnieval.executors.sweep_runner` runs them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError, field_validator

from omnieval.errors import ConfigError
from omnieval.executors.options import ExecutorOptions
from omnieval.types._base import Frozen
from omnieval.types.files import ResultsFile

__all__ = ["SweepModel", "SweepShape", "SweepSpec", "board", "load_sweep", "run_dir_name", "sweep_shape"]


class SweepModel(Frozen):
    """One model of the sweep; ``name`` names its run directory (default: from the model spec)."""

    model: str
    name: str | None = None
    base_url: str | None = None
    backend_opt: dict[str, Any] = Field(default_factory=dict)


class SweepSpec(Frozen):
    """The matrix: models × tasks."""

    models: tuple[SweepModel, ...]
    tasks: tuple[str, ...]
    models_at_once: int | None = Field(default=None, ge=1)
    """Models running at once on Ray (default: :func:`sweep_shape`'s rule)."""

    @field_validator("models", mode="before")
    @classmethod
    def _models(cls, value: Any) -> Any:
        items = value.split(",") if isinstance(value, str) else value
        return tuple(
            {"model": m.strip()} if isinstance(m, str) else m
            for m in items
            if not isinstance(m, str) or m.strip()
        )

    @field_validator("tasks", mode="before")
    @classmethod
    def _tasks(cls, value: Any) -> Any:
        return tuple(t.strip() for t in value.split(",") if t.strip()) if isinstance(value, str) else value


def load_sweep(
    path: Path | None, *, models: str | None, tasks: str | None, models_at_once: int | None = None
) -> SweepSpec:
    """From ``--models/--tasks``, or a YAML with ``models:``, ``tasks:`` and optionally ``models_at_once:``
    (flags override the file)."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"{path}: cannot read the sweep file ({exc})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: a sweep file is a mapping with 'models' and 'tasks'")
    if models:
        data["models"] = models
    if tasks:
        data["tasks"] = tasks
    if models_at_once is not None:
        data["models_at_once"] = models_at_once
    where = str(path) if path is not None else "--models/--tasks"
    try:
        spec = SweepSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{where}: field {field!r}: {first['msg']}") from None
    if not spec.models or not spec.tasks:
        raise ConfigError(f"{where}: a sweep needs at least one model and one task")
    names = [run_dir_name(m) for m in spec.models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(
            f"{where}: two models would share the run directory {duplicates[0]!r}; give them names"
        )
    return spec


def run_dir_name(model: SweepModel) -> str:
    return model.name or re.sub(r"[^A-Za-z0-9_.-]+", "_", model.model).strip("_")


def board(runs: list[tuple[str, ResultsFile | None, str, str]]) -> dict[str, Any]:
    """Rows per model (best first) from ``(name, results, model spec, status)``: mean task score, each
    task's score, the counted states and the model's status (``finished``, or ``failed`` for a run without
    results)."""
    rows: list[dict[str, Any]] = []
    for name, results, spec, status in runs:
        tasks = results.tasks if results is not None else {}
        scores = {t: block.score for t, block in tasks.items() if block.scored and block.score is not None}
        states = results.states if results is not None else {}
        rows.append(
            {
                "model": name,
                "spec": results.model if results is not None else spec,
                "mean": sum(scores.values()) / len(scores) if scores else None,
                **{t: round(s, 4) for t, s in scores.items()},
                "n": sum(states.values()),
                "errors": states.get("error", 0),
                "status": "finished" if results is not None else status,
            }
        )
    rows.sort(key=lambda r: (r["mean"] is None, -(r["mean"] or 0.0), r["model"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
        if row["mean"] is not None:
            row["mean"] = round(row["mean"], 4)
    return {"title": "sweep", "rows": rows}


@dataclass(frozen=True)
class SweepShape:
    """How a sweep uses the cluster: models running at once and the workers each of them gets."""

    models_at_once: int
    workers: tuple[int, ...]
    """Worker actors (replicas) of each model, in the sweep's order."""
    slots: int
    """Worker slots of the cluster: CPUs / ``cpus_per_worker``, and GPUs / GPUs per replica when a
    model is local and replicas take GPUs."""


def sweep_shape(
    *, local: Sequence[bool], cpus: float, gpus: float, options: ExecutorOptions, models_at_once: int | None
) -> SweepShape:
    """Split the cluster among the models running at once; never more workers than slots.

    ``local`` says per model whether it runs in-process (``hf/``, ``vllm/``...). The default runs as
    many models at once as there are slots (each model gets at least one worker; API models are
    bounded by their endpoint's gate, not by each other) and splits the slots evenly; a local model on
    a cluster without GPUs gets one replica, as in a single run. An explicit ``--workers`` is per model
    and the default then runs ``slots // workers`` models at once.
    """
    gpus_per_replica = (
        options.gpus_per_replica if options.gpus_per_replica is not None else (1.0 if gpus >= 1 else 0.0)
    )
    slots = int(cpus // max(options.cpus_per_worker, 1e-9))
    if any(local) and gpus_per_replica > 0:
        slots = min(slots, int(gpus // gpus_per_replica))
    if slots < 1:
        raise ConfigError(
            f"the cluster has no room for one worker ({cpus:g} CPUs, {gpus:g} GPUs; "
            f"{options.cpus_per_worker:g} CPUs and {gpus_per_replica:g} GPUs per worker)"
        )
    if options.workers is not None and options.workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {options.workers}")
    at_once = models_at_once or (slots // options.workers if options.workers else slots)
    at_once = max(1, min(at_once, len(local)))
    even = options.workers or max(1, slots // at_once)
    workers = tuple(
        1 if is_local and gpus_per_replica == 0 and options.workers is None else even for is_local in local
    )
    if at_once * max(workers) > slots:
        raise ConfigError(
            f"{at_once} models at once × {max(workers)} workers each need {at_once * max(workers)} "
            f"worker slots, but the cluster has {slots}: lower --models-at-once or --workers"
        )
    return SweepShape(models_at_once=at_once, workers=workers, slots=slots)
