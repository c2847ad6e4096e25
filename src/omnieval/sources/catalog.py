"""The catalogue of built-in and user task directories."""

from __future__ import annotations

from pathlib import Path

__all__ = ["register_task_dir", "task_dirs"]

_TASK_DIRS: list[Path] = []


def register_task_dir(path: Path | str) -> None:
    """Add a directory whose ``*.yaml`` files (searched recursively) are built-in tasks."""
    resolved = Path(path).resolve()
    if resolved not in _TASK_DIRS:
        _TASK_DIRS.append(resolved)


def task_dirs() -> list[Path]:
    """Registered task directories, built-in first, then user ones."""
    return list(_TASK_DIRS)
