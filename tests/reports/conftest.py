"""Report test helpers: synthetic runs and the system Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.testing.browser import chromium_path
from omnieval.testing.runs import write_synthetic_run


@pytest.fixture
def synthetic_run(tmp_path: Path) -> Path:
    return write_synthetic_run(tmp_path / "model-a", n_samples=600, skill=0.5, seed=1)


needs_chromium = pytest.mark.skipif(
    chromium_path() is None, reason="Debian's chromium is not installed (make system-deps)"
)
