"""Loading task files: safe YAML → validated :class:`TaskSpec` → :class:`Task`.

Every plugin name a task refers to (parser, metrics, renderer, adapter, transforms, generator) is
resolved here, so a typo fails at validation time with the file and key named.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from omnieval.errors import TaskFileError
from omnieval.sources.ids import IdLedger
from omnieval.sources.plugins import generators, transforms
from omnieval.sources.readers import count_rows, read_located_rows, row_unit
from omnieval.sources.rows import row_to_sample, sample_id_of
from omnieval.sources.task import Task
from omnieval.types import Sample, SourceSpec, TaskSpec

__all__ = ["deep_merge", "load_task_file", "spec_from_dict", "task_from_spec"]


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Merge ``override`` into ``base``: dicts merge key by key, everything else is replaced."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _read_yaml(path: Path) -> dict[str, Any]:
    import yaml  # here: a ``FORMAT:PATH`` task reads no YAML, and yaml is ≈ 10 ms of start-up

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFileError("file not found", path=str(path)) from None
    except yaml.YAMLError as exc:
        raise TaskFileError(f"invalid YAML: {exc}", path=str(path)) from None
    if not isinstance(data, dict):
        raise TaskFileError("a task file must be a mapping", path=str(path))
    parent = data.pop("extends", None)
    if parent is not None:
        data = deep_merge(_read_yaml((path.parent / str(parent)).resolve()), data)
    return data


def spec_from_dict(data: dict[str, Any], *, path: str) -> TaskSpec:
    """Validate a raw mapping; the first error names the file and the dotted key."""
    try:
        return TaskSpec.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        # a misspelt key is usually why a required one is "missing": it is named first, with its fix
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        key = ".".join(str(p) for p in err["loc"]) or None
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        hint = _did_you_mean(err["loc"]) if err["type"] == "extra_forbidden" else ""
        raise TaskFileError(f"{err['msg']}{hint}{more}", path=path, key=key) from None


def _did_you_mean(loc: tuple[int | str, ...]) -> str:
    """``; did you mean 'metrics'?`` for an unknown key, from the keys its place in the spec allows."""
    import difflib

    allowed = _allowed_keys(loc[:-1])
    close = difflib.get_close_matches(str(loc[-1]), allowed, n=2, cutoff=0.6)
    return f"; did you mean {' or '.join(map(repr, close))}?" if close else ""


def _allowed_keys(parent: tuple[int | str, ...]) -> list[str]:
    """The field names of the spec model at ``parent`` (list positions and mapping keys pass through)."""
    import typing

    from pydantic import BaseModel

    models: list[type[BaseModel]] = [TaskSpec]
    for step in parent:
        if isinstance(step, int):
            continue
        found: list[type[BaseModel]] = []
        for model in models:
            field = model.model_fields.get(str(step))
            if field is None:
                continue
            pending: list[Any] = [field.annotation]
            while pending:
                tp = pending.pop()
                if isinstance(tp, type) and issubclass(tp, BaseModel):
                    found.append(tp)
                pending.extend(typing.get_args(tp))
        models = found or models
    return sorted({name for model in models for name in model.model_fields})


def load_task_file(path: str | Path) -> Task:
    """Load, validate and resolve one task YAML file."""
    file = Path(path).resolve()
    spec = spec_from_dict(_read_yaml(file), path=str(file))
    return task_from_spec(spec, base_dir=file.parent, origin=str(file))


def cache_root() -> Path:
    """Where generated data and caches live (``OMNIEVAL_CACHE`` or ``~/.cache/omnieval``)."""
    return Path(os.environ.get("OMNIEVAL_CACHE", Path.home() / ".cache" / "omnieval"))


def _code_version(fn: object) -> str:
    """Hash of the generator's source file: changed generator code means regenerated data."""
    try:
        source_file = inspect.getsourcefile(fn)  # type: ignore[arg-type]
    except TypeError:
        source_file = None
    if source_file is None:
        return "unknown"
    return hashlib.sha256(Path(source_file).read_bytes()).hexdigest()[:12]


def _environment_key(fn: object) -> str:
    """A generator may say what else its output depends on (``fn.cache_key()``, e.g. an installed tool)."""
    key = getattr(fn, "cache_key", None)
    return str(key()) if callable(key) else ""


def _generated_path(source: SourceSpec) -> Path:
    """Run the registered generator once per option set; later calls reuse its output."""
    name = source.name or ""
    generator = generators.get(name)
    key = hashlib.sha256(
        json.dumps(
            [name, source.options, _code_version(generator), _environment_key(generator)],
            sort_keys=True,
            default=str,
        ).encode()
    ).hexdigest()[:12]
    out_dir = cache_root() / "generated" / f"{name}-{key}"
    done = out_dir / ".done"
    if done.exists():
        return out_dir / done.read_text().strip()
    out_dir.mkdir(parents=True, exist_ok=True)
    produced = Path(generator(out_dir, **source.options))
    done.write_text(str(produced.relative_to(out_dir)) if produced.is_relative_to(out_dir) else str(produced))
    return produced


def _source_path(source: SourceSpec, base_dir: Path | None) -> Path | None:
    if source.type == "generator":
        return _generated_path(source)
    if source.path is None:
        return None
    path = Path(source.path)
    return path if path.is_absolute() or base_dir is None else (base_dir / path).resolve()


def _fingerprint(path: Path | None) -> str | None:
    if path is None or not path.exists():
        return None
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    digest = hashlib.sha256()
    for f in files:
        stat = f.stat()
        digest.update(f"{f.name}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:16]


def _iter_source(source: SourceSpec, path: Path | None, *, split: str | None = None) -> Iterator[Sample]:
    media_base = path.parent if path is not None and path.is_file() else path
    where = str(path) if path is not None else (source.name or source.type)
    kind = "jsonl" if source.type == "generator" else source.type  # generators write JSONL
    rows = read_located_rows(
        kind, path=path, name=source.name, split=split or source.split, config=source.config
    )
    chained = [(r.name, r.options) for r in source.transforms]
    ledger = _ledger(source, where, kind)
    for index, line, row in rows:
        sample = row_to_sample(row, index, source.fields, path=where, base_dir=media_base)
        if ledger is not None:
            ledger.add(sample.id, line)
        items = [sample]
        for name, options in chained:
            items = [out for item in items for out in transforms.get(name)(item, **options)]
        yield from items


def _ledger(source: SourceSpec, where: str, kind: str) -> IdLedger | None:
    """Ids from an id column must be unique; positional ids (no id column) are unique by construction."""
    return IdLedger(path=where, field=source.fields.id, unit=row_unit(kind)) if source.fields.id else None


def _scan_ids(source: SourceSpec, path: Path | None, *, split: str | None = None) -> None:
    """Read only the id of every row (Parquet: only the id column) and raise on a duplicate."""
    where = str(path) if path is not None else (source.name or source.type)
    kind = "jsonl" if source.type == "generator" else source.type
    ledger = _ledger(source, where, kind)
    if ledger is None or source.fields.id is None:
        return
    columns = [source.fields.id.split(".")[0]]
    rows = read_located_rows(
        kind, path=path, name=source.name, split=split or source.split, config=source.config, columns=columns
    )
    for index, line, row in rows:
        ledger.add(sample_id_of(row, index, source.fields, path=where), line)


def task_from_spec(spec: TaskSpec, *, base_dir: Path | None, origin: str) -> Task:
    """Bind a validated spec to its data source (nothing is read until samples are iterated)."""
    for i, ref in enumerate(spec.source.transforms):
        try:
            transforms.get(ref.name)
        except Exception as exc:
            raise TaskFileError(str(exc), path=origin, key=f"source.transforms[{i}]") from None
    if spec.source.type == "generator" and spec.source.name not in generators:
        raise TaskFileError(f"unknown data generator {spec.source.name!r}", path=origin, key="source.name")
    path = _source_path(spec.source, base_dir)
    counted_as = "jsonl" if spec.source.type == "generator" else spec.source.type  # generators write JSONL
    size = None if spec.source.transforms else count_rows(counted_as, path=path)
    demo_source = spec.prompt.fewshot.source
    demos = None
    if spec.prompt.fewshot.n > 0:
        demo_spec = demo_source or spec.source
        demo_path = _source_path(demo_spec, base_dir) if demo_source else path
        split = spec.prompt.fewshot.split
        demos = lambda: _iter_source(demo_spec, demo_path, split=split)  # noqa: E731
    return Task(
        spec=spec,
        iter_samples=lambda: _iter_source(spec.source, path),
        check_ids=lambda: _scan_ids(spec.source, path),
        base_dir=base_dir,
        size=size,
        iter_demos=demos,
        data_fingerprint=_fingerprint(path),
        origin=origin,
    )
