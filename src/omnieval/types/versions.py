"""The versions of a run's files (``schema_version``), apart from their models: the runner writes the
manifest before its first request, and loading the file models then cost every run's start-up."""

from __future__ import annotations

__all__ = ["LEADERBOARD_SCHEMA_VERSION", "MANIFEST_SCHEMA_VERSION", "RESULTS_SCHEMA_VERSION"]

RESULTS_SCHEMA_VERSION = 2
MANIFEST_SCHEMA_VERSION = 1
LEADERBOARD_SCHEMA_VERSION = 1
