"""Checking ``--backend-opt`` and ``--media-opt`` before anything runs.

Each backend declares its own options as a frozen pydantic model (``Backend.extra_options``); the
media overrides are fields of :class:`MediaPolicy`. A misspelt key (``image_max_sid``) or a value of
the wrong type is an error that lists the keys there are, never an option silently ignored.
"""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ValidationError

from omnieval.errors import ConfigError
from omnieval.types import MediaPolicy
from omnieval.types._base import described

__all__ = ["check_backend_extra", "check_media_overrides", "known_keys"]


def _type_name(annotation: Any) -> str:
    if get_origin(annotation) is Literal:
        return " | ".join(map(str, get_args(annotation)))
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")


def known_keys(model: type[BaseModel]) -> str:
    """``key (type): description; ...`` for an error message."""
    if not model.model_fields:
        return "none"
    items = []
    for name, info in described(model).model_fields.items():
        text = f"{name} ({_type_name(info.annotation)})"
        if info.description:
            text += f": {info.description.splitlines()[0].rstrip('.')}"
        items.append(text)
    return "; ".join(items)


def _validate(model: type[BaseModel], values: dict[str, Any], *, what: str) -> BaseModel:
    unknown = sorted(set(values) - set(model.model_fields))
    if unknown:
        raise ConfigError(
            f"{what}: unknown key(s) {', '.join(map(repr, unknown))}; known keys: {known_keys(model)}"
        )
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc']))}={e.get('input')!r}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(f"{what}: {problems}") from None


def check_media_overrides(media: dict[str, Any]) -> MediaPolicy:
    """Validate ``--media-opt`` keys and values against :class:`MediaPolicy`."""
    return _validate(MediaPolicy, media, what="--media-opt (media policy)")  # type: ignore[return-value]


def check_backend_extra(
    provider: str, model: type[BaseModel] | None, extra: dict[str, Any], *, option: str = "--backend-opt"
) -> BaseModel | None:
    """Validate ``--backend-opt`` against the options model a backend declares (None: it takes none);
    ``option`` names the flag in errors (``--judge-backend-opt`` for a judge)."""
    if model is None:
        if extra:
            raise ConfigError(
                f"{option}: backend {provider!r} takes no options, got {', '.join(map(repr, sorted(extra)))}"
            )
        return None
    return _validate(model, extra, what=f"{option} (backend {provider!r})")
