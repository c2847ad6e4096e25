"""omnieval: evaluation of text, image, audio and video language models.

The public API lives in :mod:`omnieval.api` (docs/api/index.md); it is imported on first use, so
``import omnieval`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from omnieval.version import __version__

if TYPE_CHECKING:
    from omnieval.api import (
        Comparison,
        EvalResults,
        LeaderboardFile,
        ResultsFile,
        SampleResult,
        TaskResults,
        compare,
        evaluate,
        load_results,
        rejudge,
        report,
        score,
        sweep,
    )

__all__ = [
    "Comparison",
    "EvalResults",
    "LeaderboardFile",
    "ResultsFile",
    "SampleResult",
    "TaskResults",
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
    """The API's functions and result types, imported from :mod:`omnieval.api` when first asked for."""
    if name in __all__ and name != "__version__":
        from omnieval import api

        return getattr(api, name)
    raise AttributeError(f"module 'omnieval' has no attribute {name!r}")
