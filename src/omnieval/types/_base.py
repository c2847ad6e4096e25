"""The frozen base every shared type derives from."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Frozen"]


class Frozen(BaseModel):
    """Immutable, strict model: an unknown field is an error, never silently dropped."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)
