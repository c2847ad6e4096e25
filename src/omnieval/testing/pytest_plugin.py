"""A pytest fixture for users' own CI: ``pytest_plugins = ["omnieval.testing.pytest_plugin"]``.

``fake_openai`` yields a running :class:`FakeOpenAI` (in a background thread, so both async tests
and subprocess ``omnieval run`` calls can reach it); ``server.url`` is the ``--base-url`` to pass.
Parametrise it indirectly with a dict of :class:`FakeOpenAI` keyword arguments to script answers,
latency or faults.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from omnieval.testing.fake_openai import FakeOpenAI

__all__ = ["fake_openai"]


@pytest.fixture
def fake_openai(request: pytest.FixtureRequest) -> Iterator[FakeOpenAI]:
    """A fresh fake server per test; counters start at zero."""
    options: dict[str, Any] = getattr(request, "param", None) or {}
    with FakeOpenAI(**options).in_thread() as server:
        yield server
