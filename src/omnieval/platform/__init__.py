"""The web platform (issue 13): hidden-answer scoring of submissions, review, public boards, expert
annotation.

A layer above :mod:`omnieval.api`; nothing in the engine imports it and the CLI imports it lazily.
``create_app(Settings(data_dir=...))`` (in ``app``) builds the FastAPI application. Inside, each layer imports
only the ones below it: ``app``/``serve`` → ``routes`` → ``services`` → ``storage`` → ``settings`` →
``errors`` (the import-linter contracts in pyproject.toml check it).
"""

from __future__ import annotations

from omnieval.platform.settings import Settings

__all__ = ["Settings"]
