"""Typed, versioned views of the files a run writes: results.json, manifest.json, leaderboard.json and
one line of samples.jsonl (``SampleResult``).

Each file model carries ``schema_version``. A file without one was written before versioning and is
read as version 1 (the same layout). A version this code does not know is refused with the file and
the version named, never read half right. The models type the keys readers rely on and keep any other
key (``extra="allow"``): stages add facts to results.json over time, and a reader must not drop them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from omnieval.errors import StoreError
from omnieval.types._base import described
from omnieval.types.result import SampleResult
from omnieval.types.versions import (
    LEADERBOARD_SCHEMA_VERSION,
    MANIFEST_SCHEMA_VERSION,
    RESULTS_SCHEMA_VERSION,
)

__all__ = [
    "LEADERBOARD_SCHEMA_VERSION",
    "MANIFEST_SCHEMA_VERSION",
    "RESULTS_SCHEMA_VERSION",
    "LeaderboardFile",
    "ManifestFile",
    "ResultsFile",
    "TaskResults",
    "checked_json",
    "json_schema",
    "record_model",
    "results_model",
]

_KNOWN = {1}


class _Typed(BaseModel):
    """Typed keys; unknown keys are kept (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    def extra(self, key: str, default: Any = None) -> Any:
        """An untyped key a stage added (a task's ``metadata``, ``judge``, ``version``...), or
        ``default``."""
        return (self.model_extra or {}).get(key, default)


class _File(_Typed):
    """A whole file, versioned."""

    schema_version: Literal[1] = 1
    """Absent in files written before versioning (read as 1)."""


class TaskResults(_Typed):
    """One task's block of results.json."""

    score: float | None
    """The task's headline score in [0, 1]; ``None`` when no sample was scored."""
    n: int = Field(ge=0)
    states: dict[str, int]
    """Samples per end state (ok, parse_failed, truncated, error, skipped, judge_failed)."""
    metrics: dict[str, Any] = Field(default_factory=dict)
    n_scored: int | None = None
    scored: bool = True
    score_metric: str | None = None
    ci95: tuple[float, float] | None = None
    metric_versions: dict[str, str] = Field(default_factory=dict)
    hash: str | None = None


class ResultsFile(_File):
    """results.json."""

    model: str
    omnieval_version: str | None = None
    tasks: dict[str, TaskResults]
    states: dict[str, int] = Field(default_factory=dict)
    """Samples per end state over all tasks (always written; hand-made files may leave it out)."""
    blind: bool = False
    retries: int = 0
    backend: dict[str, Any] = Field(default_factory=dict)


class ManifestFile(_File):
    """manifest.json: what a run was (its config and task hashes) and how far it got."""

    status: str | None = None
    """``running`` or ``finished`` (``omnieval run`` always writes it; hand-made fixtures may not)."""
    started: str | None = None
    finished: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    tasks: dict[str, dict[str, Any]] = Field(default_factory=dict)
    backend: dict[str, Any] = Field(default_factory=dict)
    judges: dict[str, Any] | None = None
    environment: dict[str, Any] = Field(default_factory=dict)


class LeaderboardFile(_File):
    """leaderboard.json of ``omnieval sweep``."""

    rows: list[dict[str, Any]]
    runs: dict[str, str] = Field(default_factory=dict)
    failed: dict[str, str | None] = Field(default_factory=dict)
    schemes: dict[str, Any] = Field(default_factory=dict)


_MODELS: dict[str, type[BaseModel]] = {
    "results": ResultsFile,
    "manifest": ManifestFile,
    "leaderboard": LeaderboardFile,
    "record": SampleResult,
}


_FILE_MODELS: dict[str, type[_File]] = {
    "results": ResultsFile,
    "manifest": ManifestFile,
    "leaderboard": LeaderboardFile,
}


def json_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of ``results``, ``manifest``, ``leaderboard`` or ``record`` (a samples.jsonl line)."""
    try:
        model = _MODELS[kind]
    except KeyError:
        raise StoreError(f"no schema {kind!r}; known: {', '.join(_MODELS)}") from None
    return described(model).model_json_schema()


def results_model(data: dict[str, Any], *, source: str | Path) -> ResultsFile:
    """Validate a results document; ``source`` names it in errors (the file path)."""
    return _validate(ResultsFile, data, source=source)


def record_model(record: Mapping[str, Any], *, source: str | Path) -> SampleResult:
    """One ``samples.jsonl`` record through :class:`SampleResult`; one that does not validate is an error
    naming ``source`` (the file and line), the record's task and sample, and the field."""
    try:
        return SampleResult.model_validate(record)
    except ValidationError as exc:
        which = f"task {record.get('task')!r} sample {record.get('sample_id')!r}"
        raise StoreError(f"{source}: {which}: not a valid record: {exc}") from None


def _validate(model: type[_File], data: dict[str, Any], *, source: str | Path) -> Any:
    version = data.get("schema_version", 1)
    if version not in _KNOWN:
        raise StoreError(
            f"{source}: schema_version {version!r} is not one this omnieval reads "
            f"({sorted(_KNOWN)}); upgrade omnieval to read it"
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise StoreError(f"{source}: not a valid {model.__name__}: {exc}") from None


def load_file(path: Path, model: type[_File]) -> Any:
    """Read and validate one of a run's JSON files."""
    return _validate(model, _read(path), source=path)


def checked_json(path: Path, kind: Literal["results", "manifest", "leaderboard"]) -> dict[str, Any]:
    """The file's JSON as written, once it validates against its model: for readers that keep using
    keys (a wrong version or shape fails here, naming the file, instead of as a KeyError later)."""
    data = _read(path)
    _validate(_FILE_MODELS[kind], data, source=path)
    return data


def _read(path: Path) -> dict[str, Any]:
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise StoreError(f"{path}: expected a JSON object")
    return data
