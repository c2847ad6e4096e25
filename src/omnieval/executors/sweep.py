"""``omnieval sweep``: many models × the same tasks, one run directory per model, one leaderboard.

The sweep is a list of ordinary runs: each model's run directory resumes on its own, so running the
same sweep again computes only what is missing and rebuilds the board from every ``results.json``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError, field_validator

from omnieval.errors import ConfigError
from omnieval.types._base import Frozen

__all__ = ["SweepModel", "SweepSpec", "board", "load_sweep", "run_dir_name"]


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

    @field_validator("models", mode="before")
    @classmethod
    def _models(cls, value: Any) -> Any:
        items = value.split(",") if isinstance(value, str) else value
        return tuple({"model": m.strip()} if isinstance(m, str) else m for m in items if not isinstance(m, str) or m.strip())

    @field_validator("tasks", mode="before")
    @classmethod
    def _tasks(cls, value: Any) -> Any:
        return tuple(t.strip() for t in value.split(",") if t.strip()) if isinstance(value, str) else value


def load_sweep(path: Path | None, *, models: str | None, tasks: str | None) -> SweepSpec:
    """From ``--models/--tasks``, or a YAML with ``models:`` and ``tasks:`` (flags override the file)."""
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
        raise ConfigError(f"{where}: two models would share the run directory {duplicates[0]!r}; give them names")
    return spec


def run_dir_name(model: SweepModel) -> str:
    return model.name or re.sub(r"[^A-Za-z0-9_.-]+", "_", model.model).strip("_")


def board(runs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Rows per model (best first): mean task score, each task's score and the counted states."""
    rows = []
    for name, results in runs:
        tasks = results.get("tasks") or {}
        scores = {t: block["score"] for t, block in tasks.items() if block.get("scored", True)}
        states = results.get("states") or {}
        rows.append({
            "model": name, "spec": results.get("model"),
            "mean": sum(scores.values()) / len(scores) if scores else None,
            **{t: round(s, 4) for t, s in scores.items()},
            "n": sum(states.values()), "errors": states.get("error", 0),
        })  # fmt: skip
    rows.sort(key=lambda r: (r["mean"] is None, -(r["mean"] or 0.0), r["model"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
        if row["mean"] is not None:
            row["mean"] = round(row["mean"], 4)
    return {"title": "sweep", "rows": rows}
