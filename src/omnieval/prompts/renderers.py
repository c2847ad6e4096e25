"""Registered prompt renderers: the Python escape hatch for prompts a template cannot say."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omnieval.registry import Registry
from omnieval.types import Message, PromptVariant, Sample, TaskSpec

__all__ = ["RenderContext", "Renderer", "register_renderer", "renderers"]


@dataclass(frozen=True)
class RenderContext:
    """Everything a renderer may use for one sample."""

    spec: TaskSpec
    variant: PromptVariant
    demos: Sequence[Sample] = ()
    history: Sequence[tuple[Sample, str]] = ()
    """Earlier samples of the same chain with the model's own answers, oldest first."""


Renderer = Callable[..., "tuple[Message, ...]"]
"""``(sample, ctx, **options) -> messages``."""

renderers: Registry[Renderer] = Registry("prompt renderer", group="omnieval.renderers")


def register_renderer(name: str) -> Callable[[Renderer], Renderer]:
    """Register a prompt renderer referenced as ``prompt.renderer`` in task files."""
    return renderers.register(name)
