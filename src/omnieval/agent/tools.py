"""Typed tools: a Python function whose annotated keyword arguments are the tool's JSON Schema."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from omnieval.types.tools import ToolSpec

__all__ = ["Tool", "ToolResult", "tool"]


@dataclass(frozen=True)
class ToolResult:
    """What a tool gives back: text for the model and, for image tools, pictures (PIL images)."""

    text: str
    images: tuple[Any, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Tool:
    """A callable the model may use; ``arguments`` validates what the model wrote before ``fn`` runs."""

    name: str
    description: str
    arguments: type[BaseModel]
    fn: Callable[..., ToolResult | str]

    def spec(self) -> ToolSpec:
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return ToolSpec(name=self.name, description=self.description, parameters=schema)

    def validate(self, arguments: dict[str, Any]) -> BaseModel:
        """The arguments checked against the schema (raises :class:`pydantic.ValidationError`)."""
        return self.arguments.model_validate(arguments)

    def call(self, arguments: BaseModel) -> ToolResult:
        out = self.fn(**arguments.model_dump())
        return out if isinstance(out, ToolResult) else ToolResult(str(out))


def tool(fn: Callable[..., ToolResult | str], *, name: str | None = None) -> Tool:
    """A :class:`Tool` from a function: its name, the docstring's first line, its annotated parameters
    (no extra keys allowed: a model inventing an argument gets ``bad_arguments``)."""
    params: dict[str, Any] = {}
    hints = typing.get_type_hints(fn)
    for pname, param in inspect.signature(fn).parameters.items():
        default = ... if param.default is inspect.Parameter.empty else param.default
        params[pname] = (hints.get(pname, Any), default)
    model = create_model(  # type: ignore[call-overload]
        f"{fn.__name__}_arguments", __config__=ConfigDict(extra="forbid", strict=False), **params
    )
    doc = (fn.__doc__ or "").strip().splitlines()
    return Tool(name or fn.__name__, doc[0] if doc else "", model, fn)


def schema_error(exc: ValidationError) -> str:
    """A short cause: each failing argument and why."""
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
