"""Reports: HTML report, terminal tables, run diffs."""

from omnieval.reports.diff import diff_runs
from omnieval.reports.html import results_table, write_report
from omnieval.reports.problems import error_warning, unscored_warning

__all__ = ["diff_runs", "error_warning", "results_table", "unscored_warning", "write_report"]
