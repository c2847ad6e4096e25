"""The web platform (issue 13): hidden-answer scoring of submissions, review, public boards, expert
annotation.

A layer above :mod:`omnieval.api`; nothing in the engine imports it and the CLI imports it lazily.
``create_app(Settings(data_dir=...))`` builds the FastAPI application.
"""

from __future__ import annotations

from omnieval.platform.settings import Settings

__all__ = ["Settings"]
