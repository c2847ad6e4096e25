"""Suite-wide rules. In CI (``CI`` set, as ``.ci/run`` runs) a skipped test fails the run: every real
component a test needs (PostgreSQL, Chromium, Ray, espeak-ng, Tesseract, the packaged models) is installed
by ``make test`` there, so a skip means a missing install step, not an optional extra."""

from __future__ import annotations

import os

import pytest


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not os.environ.get("CI"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if not skipped:
        return
    for report in skipped:
        reporter.write_line(
            f"skipped in CI (counts as a failure): {report.nodeid} {report.longrepr}", red=True
        )
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
