"""What a finished run says on stderr: its warnings only, so they print under ``quiet`` too (quiet
silences progress and summaries, never a warning)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from omnieval.types.files import ResultsFile
from omnieval.types.results import HookReport

__all__ = ["warn_about_run", "warn_on_hook_failures", "warn_unknown_sample_ids"]


def warn_about_run(results: ResultsFile, *, unknown_sample_ids: Sequence[str] = ()) -> None:
    """Every warning a finished run has: samples in error or left unscored, failing hooks, sample ids no
    task has."""
    _warn_on_errors(results)
    warn_on_hook_failures(results.hooks)
    warn_unknown_sample_ids(unknown_sample_ids)


def _warn_on_errors(results: ResultsFile) -> None:
    """One line per task with any sample in error (count and top causes), left unscored (no gold answer),
    holding chat-template tokens, or scored from truncated answers."""
    from omnieval.reports.problems import error_warning, leak_warning, truncated_note, unscored_warning

    for name, block in results.tasks.items():
        lines = (
            error_warning(name, block),
            unscored_warning(name, block),
            leak_warning(name, block),
            truncated_note(name, block),
        )
        for line in lines:
            if line:
                print(f"omnieval: {line}", file=sys.stderr)


def warn_on_hook_failures(report: Mapping[str, HookReport | int]) -> None:
    """A tracker that failed never failed the run; one line per hook says how often and the first error."""
    for name, tally in report.items():
        if isinstance(tally, HookReport) and tally.failures:
            print(
                f"omnieval: hook {name} failed {tally.failures} time(s) (first: {tally.first_error}); "
                "the results above are complete",
                file=sys.stderr,
            )
    if report.get("dropped_events"):
        print(f"omnieval: {report['dropped_events']} hook event(s) dropped (hooks too slow)", file=sys.stderr)


def warn_unknown_sample_ids(unknown: Sequence[str]) -> None:
    """A mistyped ``--sample-ids`` entry would otherwise only make the run smaller."""
    if unknown:
        names = ", ".join(repr(i) for i in unknown[:20]) + (
            f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
        )
        print(
            f"omnieval: warning: --sample-ids: no task has sample id(s) {names}; they were not run",
            file=sys.stderr,
        )
