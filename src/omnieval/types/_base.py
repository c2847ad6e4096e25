"""The frozen base every shared type derives from, and its fields' descriptions read on demand."""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import textwrap
import typing

from pydantic import BaseModel, ConfigDict

__all__ = ["Frozen", "described"]


class Frozen(BaseModel):
    """Immutable, strict model: an unknown field is an error, never silently dropped.

    A field is documented by the docstring under it. Those docstrings become the field's description
    only where one is read (:func:`described`: the JSON Schemas, the known-keys list of an error), not at
    class creation: pydantic's ``use_attribute_docstrings`` finds and parses each class's source as the
    class is made, which cost every command ≈ 0.1 s of start-up for the ~50 models it imports. The
    docstrings are read the same way, with the public :mod:`ast` and :mod:`inspect`."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@functools.cache
def described(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` with every field of it and of the models it nests described by its attribute docstring
    (an explicit ``Field(description=...)`` wins), as ``use_attribute_docstrings`` would have: the nested
    models are rebuilt first, so the JSON Schema of ``model`` carries their descriptions too."""
    order = _nested_models(model)
    if any([_describe_fields(klass) for klass in order]):
        for klass in order:  # children first: a parent's schema embeds its children's
            klass.model_rebuild(force=True)
    return model


def _nested_models(model: type[BaseModel]) -> list[type[BaseModel]]:
    """``model`` and every model its fields' types reach, each after the models it nests."""
    order: list[type[BaseModel]] = []
    seen: set[type[BaseModel]] = set()

    def visit(annotation: object) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in seen:
                seen.add(annotation)
                for field in annotation.model_fields.values():
                    visit(field.annotation)
                order.append(annotation)
            return
        for arg in typing.get_args(annotation):
            visit(arg)

    visit(model)
    return order


@functools.cache
def _describe_fields(model: type[BaseModel]) -> bool:
    """Set the fields' descriptions of ``model`` (once); whether any was set."""
    changed = False
    for name, info in model.model_fields.items():
        if info.description is None:
            doc = _attribute_docs(_declaring(model, name)).get(name)
            if doc is not None:
                info.description, changed = doc, True
    return changed


def _declaring(model: type[BaseModel], name: str) -> type:
    """The class whose body declares field ``name`` (its docstring is the one pydantic would read)."""
    return next((k for k in model.__mro__ if name in inspect.get_annotations(k)), model)


@functools.cache
def _attribute_docs(klass: type) -> dict[str, str]:
    """``{attribute: docstring}`` of a class body: the string statement right under an annotated
    attribute, cleaned as ``inspect.cleandoc`` does (what ``use_attribute_docstrings`` gives), read from
    the class's source with :mod:`ast`. A class without readable source has none."""
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):
        return {}
    body = next((n.body for n in ast.parse(source).body if isinstance(n, ast.ClassDef)), [])
    docs: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs
