"""omnieval: evaluation of text, image, audio and video language models.

The library API (docs/api/index.md) is imported on first use, so ``import omnieval`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_API = ("EvalResults", "compare", "evaluate", "load_results", "rejudge", "report", "score", "sweep")

__all__ = [
    "EvalResults",
    "__version__",
    "compare",
    "evaluate",
    "load_results",
    "rejudge",
    "report",
    "score",
    "sweep",
]


def __getattr__(name: str) -> Any:
    """The API functions, imported from :mod:`omnieval.library` when first asked for."""
    if name in _API:
        # a dynamic import: the package root is imported by every layer and must depend on none of them
        return getattr(importlib.import_module("omnieval.library"), name)
    raise AttributeError(f"module 'omnieval' has no attribute {name!r}")
