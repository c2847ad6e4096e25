"""Run options defined once: typed models split by concern, from which the ``omnieval run`` flags and the
keywords of :func:`omnieval.evaluate` are both made (same names, defaults and validation).

The models import only pydantic (every command's help is built from them); what turns them into the
engine's configurations (:mod:`omnieval.options.build`) loads the engine, on first use."""

from __future__ import annotations

from typing import Any

from omnieval.options.fields import Shown, option, shown
from omnieval.options.models import GROUPS, PANELS, HowToRun, JudgeOptions, RunTarget, WhatToRun, WhatToWrite

__all__ = [
    "GROUPS",
    "PANELS",
    "RENAMED",
    "HowToRun",
    "JudgeOptions",
    "RunOptions",
    "RunTarget",
    "Shown",
    "WhatToRun",
    "WhatToWrite",
    "backend_options",
    "check_keywords",
    "executor_options",
    "joined_tasks",
    "judge_config",
    "option",
    "option_names",
    "run_config",
    "run_judge",
    "run_options",
    "shown",
    "sweep_configs",
]

_BUILD = {name for name in __all__ if name not in globals()}


def __getattr__(name: str) -> Any:
    """The builders, imported when first asked for (they load the runner and the backends)."""
    if name in _BUILD:
        from omnieval.options import build

        return getattr(build, name)
    raise AttributeError(f"module 'omnieval.options' has no attribute {name!r}")
