"""Reports: HTML report, terminal tables, run diffs.

The exports load on first use: ``omnieval run`` imports :mod:`omnieval.reports.tail` before its first
request, and the report's modules (jinja2's page environment among them) are only needed at its end.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omnieval.reports.diff import diff_runs
    from omnieval.reports.html import results_table, write_report
    from omnieval.reports.problems import error_warning, unscored_warning

__all__ = ["diff_runs", "error_warning", "results_table", "unscored_warning", "write_report"]

_HOME = {
    "diff_runs": "omnieval.reports.diff",
    "results_table": "omnieval.reports.html",
    "write_report": "omnieval.reports.html",
    "error_warning": "omnieval.reports.problems",
    "unscored_warning": "omnieval.reports.problems",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
