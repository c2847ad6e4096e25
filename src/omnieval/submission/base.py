"""Submission formats: pack a run into an archive, validate an archive.

``omnieval pack RUN_DIR --format NAME -o OUT.zip`` and ``omnieval validate-submission OUT.zip [--format
NAME]``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from omnieval.registry import Registry

__all__ = [
    "Packer",
    "Reader",
    "Validator",
    "packers",
    "readers",
    "register_packer",
    "register_reader",
    "register_validator",
    "validators",
]

Packer = Callable[..., Path]
"""``(run_dirs: list[Path], out: Path, /, **options) -> out``."""

Validator = Callable[..., "dict[str, Any]"]
"""``(archive: Path, /, **options) -> {"ok": bool, "tasks": {...}, "errors": [...]}``."""

packers: Registry[Packer] = Registry("submission packer", group="omnieval.packers")
validators: Registry[Validator] = Registry("submission validator", group="omnieval.validators")

Reader = Callable[..., "dict[str, dict[str, str]]"]
"""``(archive: Path, /) -> {task name: {sample id: answer text}}`` (scoring a submission on hidden
answers)."""

readers: Registry[Reader] = Registry("submission reader", group="omnieval.readers")


def register_packer(fmt: str) -> Callable[[Packer], Packer]:
    return packers.register(fmt)


def register_validator(fmt: str) -> Callable[[Validator], Validator]:
    return validators.register(fmt)


def register_reader(fmt: str) -> Callable[[Reader], Reader]:
    return readers.register(fmt)
