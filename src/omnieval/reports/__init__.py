"""Reports: HTML report, terminal tables, run diffs."""

from omnieval.reports.diff import diff_runs
from omnieval.reports.html import results_table, write_report

__all__ = ["diff_runs", "results_table", "write_report"]
