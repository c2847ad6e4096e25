"""The built-in hooks, registered by name; each imports its tracker only when a run uses it."""

from __future__ import annotations

from omnieval.hooks.base import hooks
from omnieval.hooks.mlflow_hook import MlflowHook
from omnieval.hooks.wandb_hook import WandbHook

__all__ = ["BUILTIN_HOOKS"]

BUILTIN_HOOKS = {"wandb": WandbHook, "mlflow": MlflowHook}
"""Also declared as ``omnieval.hooks`` entry points in pyproject.toml."""

for _name, _cls in BUILTIN_HOOKS.items():
    hooks.add(_name, _cls)
