"""Source-stage plugin registries: data generators and sample transforms."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from omnieval.registry import Registry
from omnieval.types import Sample

__all__ = ["Generator", "Transform", "generators", "register_generator", "register_transform", "transforms"]

Generator = Callable[..., Path]
"""``(out_dir: Path, /, **options) -> path of a JSONL file`` written deterministically into ``out_dir``
(media files beside it, paths relative to the JSONL). Used by ``source: {type: generator, name: ...}``;
the engine calls it once per option set and caches the output."""

Transform = Callable[..., "list[Sample]"]
"""``(sample, /, **options) -> samples``: expands or rewrites one sample (CircularEval rotations, ...)."""

generators: Registry[Generator] = Registry("data generator", group="omnieval.generators")
transforms: Registry[Transform] = Registry("sample transform", group="omnieval.transforms")


def register_generator(name: str) -> Callable[[Generator], Generator]:
    """Register a data generator referenced as ``source.name`` with ``source.type: generator``."""
    return generators.register(name)


def register_transform(name: str) -> Callable[[Transform], Transform]:
    """Register a sample transform referenced in ``source.transforms``."""
    return transforms.register(name)
