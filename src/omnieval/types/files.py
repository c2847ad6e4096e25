"""Typed, versioned views of the files a run writes: results.json, manifest.json, leaderboard.json and
one line of samples.jsonl (``SampleResult``).

Each file model carries ``schema_version``. A file without one was written before versioning and is
read as version 1. An older version is brought to the current one by its explicit migrations
(:mod:`omnieval.types.migrations`) before it is validated; a version this code does not know is refused
with the file and the version named, never read half right. Every model refuses a key it does not know,
at any level, naming the file and the key's path.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from omnieval.errors import StoreError
from omnieval.types._base import Frozen, described
from omnieval.types.migrations import migrate
from omnieval.types.result import SampleResult
from omnieval.types.results import ResultsFile, TaskResults
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
    "ManifestTask",
    "ResultsFile",
    "RunEnvironment",
    "TaskResults",
    "checked_json",
    "json_schema",
    "load_file",
    "record_model",
    "results_model",
]


class RunEnvironment(Frozen):
    """Where a run ran: omnieval's version and commit, Python, the platform and the libraries."""

    omnieval_version: str | None = None
    git_commit: str | None = None
    python: str | None = None
    platform: str | None = None
    machine: str | None = None
    cpu_count: int | None = None
    libraries: dict[str, str] = Field(default_factory=dict)


class ManifestTask(Frozen):
    """One task of a run's manifest: where it came from and what exactly it was."""

    origin: str | None = None
    version: str | None = None
    hash: str | None = None
    """The task's content hash (a re-run with another hash is not the same task)."""
    data_fingerprint: str | None = None
    size: int | None = None
    prompt_variants: list[str] = Field(default_factory=list)
    spec: dict[str, Any] = Field(default_factory=dict)
    """The task's full spec as run (validated by ``TaskSpec`` where it is used)."""


class ManifestFile(Frozen):
    """manifest.json: what a run was (its config and task hashes) and how far it got."""

    schema_version: Literal[1] = 1
    """Absent in files written before versioning (read as 1)."""
    status: str | None = None
    """``running`` or ``finished`` (``omnieval run`` always writes it; hand-made fixtures may not)."""
    started: str | None = None
    finished: str | None = None
    environment: RunEnvironment = Field(default_factory=RunEnvironment)
    config: dict[str, Any] = Field(default_factory=dict)
    """The run's configuration (validated by ``RunConfig`` where it is used)."""
    judges: dict[str, Any] | None = None
    """Per judged task, the judge that ran (judge-defined description)."""
    backend: dict[str, Any] = Field(default_factory=dict)
    tasks: dict[str, ManifestTask] = Field(default_factory=dict)
    hooks: dict[str, Any] = Field(default_factory=dict)
    """The hooks' delivery report (as in results.json)."""
    rejudged: bool = False
    executor: dict[str, Any] = Field(default_factory=dict)
    """The Ray executor's block: workers, shards, judges' gates, lost nodes."""
    imported_from: str | None = None
    """The file an imported run came from."""
    merged_from: list[str] = Field(default_factory=list)
    """The shards' run folders ``omnieval merge`` joined into this one."""
    speech_recognition: dict[str, Any] | None = None
    """What heard the spoken answers (engine, model, versions); ``None``: the run had none."""
    lm_eval: dict[str, Any] = Field(default_factory=dict)
    """An lm-evaluation-harness import's own facts (config, versions, n-shot...)."""


class LeaderboardFile(Frozen):
    """leaderboard.json of ``omnieval sweep``."""

    schema_version: Literal[1] = 1
    """Absent in files written before versioning (read as 1)."""
    title: str = "sweep"
    rows: list[dict[str, Any]]
    """A row per model: its rank, mean, each task's score (keyed by task name), counts and status."""
    runs: dict[str, str] = Field(default_factory=dict)
    failed: dict[str, str | None] = Field(default_factory=dict)
    schemes: dict[str, Any] = Field(default_factory=dict)
    """Each scheme's board (scheme-defined)."""


_MODELS: dict[str, type[BaseModel]] = {
    "results": ResultsFile,
    "manifest": ManifestFile,
    "leaderboard": LeaderboardFile,
    "record": SampleResult,
}


_FILE_MODELS: dict[str, type[BaseModel]] = {
    "results": ResultsFile,
    "manifest": ManifestFile,
    "leaderboard": LeaderboardFile,
}

_CURRENT = {
    ResultsFile: RESULTS_SCHEMA_VERSION,
    ManifestFile: MANIFEST_SCHEMA_VERSION,
    LeaderboardFile: LEADERBOARD_SCHEMA_VERSION,
}
_KIND = {model: kind for kind, model in _FILE_MODELS.items()}


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


def _migrated(model: type[BaseModel], data: dict[str, Any], *, source: str | Path) -> dict[str, Any]:
    """``data`` brought to ``model``'s version by its migrations; a version it cannot be brought from
    (a newer one) is refused, naming ``source``."""
    current = _CURRENT[model]
    data = migrate(_KIND[model], data, current=current)
    version = data.get("schema_version", 1)
    if version != current:
        raise StoreError(
            f"{source}: schema_version {version!r} is not one this omnieval reads "
            f"(up to {current}); upgrade omnieval to read it"
        )
    return data


def _validate(model: type[BaseModel], data: dict[str, Any], *, source: str | Path) -> Any:
    data = _migrated(model, data, source=source)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise StoreError(f"{source}: not a valid {model.__name__}: {_problems(exc, data)}") from None


def _problems(exc: ValidationError, data: Any) -> str:
    """The problems, each named by the key's path in the file (``tasks.demo.judge.colour: unknown key``)."""
    lines = []
    for error in exc.errors():
        where = ".".join(_key_path(data, error["loc"])) or "(document)"
        what = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        lines.append(f"{where}: {what}")
    return "; ".join(dict.fromkeys(lines))


def _key_path(data: Any, loc: tuple[int | str, ...]) -> list[str]:
    """``loc`` as keys of the document: pydantic puts a union member's name (``HookReport``, ``int``) in a
    location, which is no key of the file; the last part (a missing or unknown key) is always kept."""
    path, node = [], data
    for i, part in enumerate(loc):
        if _holds(node, part):
            node = node[part]
        elif i < len(loc) - 1:
            continue
        path.append(str(part))
    return path


def _holds(node: Any, part: int | str) -> bool:
    if isinstance(node, dict):
        return part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def load_file(path: Path, model: type[BaseModel]) -> Any:
    """Read and validate one of a run's JSON files."""
    return _validate(model, _read(path), source=path)


def checked_json(path: Path, kind: Literal["results", "manifest", "leaderboard"]) -> dict[str, Any]:
    """The file's JSON once it validates against its model, migrated to the current version: for
    readers that keep the document (a wrong version or shape fails here, naming the file)."""
    model = _FILE_MODELS[kind]
    data = _migrated(model, _read(path), source=path)
    _validate(model, data, source=path)
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
