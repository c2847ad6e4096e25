"""Run hooks: results sent where people already look (experiment trackers), off the evaluation's path.

A hook sees a run start, each finished record, each task finish, and the run finish or fail. Hooks are
plugins (``register_hook``); ``--log-to wandb,mlflow`` or ``evaluate(..., hooks=[...])`` enables them per
run. The :class:`HookDispatcher` calls them on its own thread through a bounded queue, so a slow or
failing hook never slows or fails the evaluation: its errors are counted and reported at the end.
"""

from omnieval.hooks.base import HookInfo, RunHook, hooks, register_hook
from omnieval.hooks.dispatch import NO_HOOKS, HookDispatcher, open_hooks

__all__ = ["NO_HOOKS", "HookDispatcher", "HookInfo", "RunHook", "hooks", "open_hooks", "register_hook"]
