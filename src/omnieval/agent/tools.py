"""Typed tools: a Python function whose annotated keyword arguments are the tool's JSON Schema."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from omnieval.types.tools import ToolSpec

__all__ = ["Tool", "ToolResult", "check_arguments", "schema_error", "tool"]


@dataclass(frozen=True)
class ToolResult:
    """What a tool gives back: text for the model and, for image tools, pictures (PIL images)."""

    text: str
    images: tuple[Any, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Tool:
    """A callable the model may use; ``arguments`` (a pydantic model) validates what the model wrote
    before ``fn`` runs; a tool described by a JSON Schema alone (``schema``, e.g. one an MCP server
    lists) has ``arguments`` None and its schema's top level checked (:func:`check_arguments`)."""

    name: str
    description: str
    arguments: type[BaseModel] | None
    fn: Callable[..., ToolResult | str]
    schema: ToolSpec | None = None

    def spec(self) -> ToolSpec:
        if self.schema is not None:
            return self.schema
        assert self.arguments is not None
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return ToolSpec(name=self.name, description=self.description, parameters=schema)

    def validate(self, arguments: dict[str, Any]) -> BaseModel | dict[str, Any]:
        """The arguments checked against the schema (raises :class:`ValueError`, a pydantic
        ``ValidationError`` for a typed tool)."""
        if self.arguments is None:
            check_arguments(self.spec().parameters, arguments)
            return arguments
        return self.arguments.model_validate(arguments)

    def call(self, arguments: BaseModel | dict[str, Any]) -> ToolResult:
        values = arguments if isinstance(arguments, dict) else arguments.model_dump()
        out = self.fn(**values)
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


def schema_error(exc: ValueError) -> str:
    """A short cause: each failing argument and why."""
    if not isinstance(exc, ValidationError):
        return str(exc)
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def check_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    """The top level of a tool's JSON Schema: required keys, no unknown key when
    ``additionalProperties`` is false, each property's ``type``; a ``ValueError`` names the argument."""
    properties = schema.get("properties") or {}
    missing = [k for k in schema.get("required") or () if k not in arguments]
    if missing:
        raise ValueError(f"missing argument(s) {', '.join(missing)}")
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(arguments) - set(properties))
        if unknown:
            raise ValueError(f"unknown argument(s) {', '.join(unknown)}")
    for key, value in arguments.items():
        wanted = (properties.get(key) or {}).get("type")
        kinds = _TYPES.get(wanted) if isinstance(wanted, str) else None
        if kinds is None:
            continue
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            raise ValueError(f"{key}: expected {wanted}, got {type(value).__name__}")
