"""Submission formats: pack a run into an archive, validate an archive.

``omnieval pack RUN_DIR --format NAME -o OUT.zip`` and ``omnieval validate-submission OUT.zip [--format NAME]``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from omnieval.registry import Registry

__all__ = ["Packer", "Validator", "packers", "register_packer", "register_validator", "validators"]

Packer = Callable[..., Path]
"""``(run_dirs: list[Path], out: Path, /, **options) -> out``."""

Validator = Callable[..., "dict[str, Any]"]
"""``(archive: Path, /, **options) -> {"ok": bool, "tasks": {...}, "errors": [...]}``."""

packers: Registry[Packer] = Registry("submission packer")
validators: Registry[Validator] = Registry("submission validator")


def register_packer(fmt: str) -> Callable[[Packer], Packer]:
    return packers.register(fmt)


def register_validator(fmt: str) -> Callable[[Validator], Validator]:
    return validators.register(fmt)
