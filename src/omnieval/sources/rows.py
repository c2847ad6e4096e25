"""Turning a raw dataset row into a :class:`Sample` through a :class:`FieldMap`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omnieval.errors import SourceError
from omnieval.types import FieldMap, MediaField, MediaRef, Sample

__all__ = ["get_field", "media_ref", "row_to_sample", "sample_id_of"]

_MISSING = object()


def get_field(row: dict[str, Any], dotted: str) -> Any:
    """``row["a"]["b"]`` for ``a.b``; returns a private sentinel when absent."""
    value: Any = row
    for part in dotted.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return _MISSING
    return value


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if value is _MISSING or value is None:
        return ()
    if isinstance(value, list | tuple):
        return tuple(value)
    return (value,)


def _choices(value: Any, *, path: str, sample_id: str, field: str) -> tuple[str, ...] | None:
    if value is _MISSING or value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise SourceError("choices must be a list", path=path, sample_id=sample_id, field=field) from None
    if not isinstance(value, list | tuple) or not value:
        raise SourceError("choices must be a non-empty list", path=path, sample_id=sample_id, field=field)
    return tuple(str(v) for v in value)


def media_ref(
    value: Any, spec: MediaField, *, base_dir: Path | None, where: dict[str, str]
) -> MediaRef | None:
    """A media reference from a path string, an HF ``{bytes, path}`` struct or raw bytes."""
    name = spec.name or spec.field
    if value is _MISSING or value is None or value == "":
        return None
    if isinstance(value, bytes):
        return MediaRef(kind=spec.kind, name=name, data=value)
    if isinstance(value, dict) and ("bytes" in value or "path" in value):
        if value.get("bytes"):
            return MediaRef(kind=spec.kind, name=name, data=value["bytes"], path=None)
        value = value.get("path")
        if not value:
            return None
    if isinstance(value, str):
        path = Path(value)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        return MediaRef(kind=spec.kind, name=name, path=str(path))
    raise SourceError(f"unsupported media value of type {type(value).__name__}", field=spec.field, **where)


def sample_id_of(row: dict[str, Any], index: int, fields: FieldMap, *, path: str) -> str:
    """The row's id column as text, or its position when the source has no id column."""
    raw_id = get_field(row, fields.id) if fields.id else index
    if raw_id is _MISSING or raw_id is None:
        raise SourceError(f"row {index} has no id", path=path, field=fields.id)
    return str(raw_id)


def row_to_sample(
    row: dict[str, Any], index: int, fields: FieldMap, *, path: str, base_dir: Path | None
) -> Sample:
    """Map one row to a sample; a missing required field is an error naming file, sample and field."""
    sample_id = sample_id_of(row, index, fields, path=path)
    where = {"path": path, "sample_id": sample_id}
    text = get_field(row, fields.input) if fields.input else ""
    if text is _MISSING:
        raise SourceError("required input field is missing", field=fields.input, **where)
    media = []
    for spec in fields.media:
        value = get_field(row, spec.field)
        for i, item in enumerate(_as_tuple(value)):
            numbered = (
                spec
                if len(_as_tuple(value)) == 1
                else spec.model_copy(update={"name": f"{spec.name or spec.field}_{i + 1}"})
            )
            ref = media_ref(item, numbered, base_dir=base_dir, where=where)
            if ref is not None:
                media.append(ref)
    metadata = _metadata(row, fields)
    chain = get_field(row, fields.chain) if fields.chain else None
    chain_index = get_field(row, fields.chain_index) if fields.chain_index else None
    return Sample(
        id=sample_id,
        input=str(text),
        fields=row,
        targets=_as_tuple(get_field(row, fields.targets)) if fields.targets else (),
        choices=_choices(get_field(row, fields.choices), field=fields.choices, **where)
        if fields.choices
        else None,
        media=tuple(media),
        metadata=metadata,
        chain=None if chain in (None, _MISSING) else str(chain),
        chain_index=None if chain_index in (None, _MISSING) else int(chain_index),
    )


def _metadata(row: dict[str, Any], fields: FieldMap) -> dict[str, Any]:
    media_fields = {m.field for m in fields.media}
    if fields.metadata == "*":
        return {k: v for k, v in row.items() if k not in media_fields and not isinstance(v, bytes)}
    return {k: get_field(row, k) for k in fields.metadata if get_field(row, k) is not _MISSING}
