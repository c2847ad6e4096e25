"""Shared fixtures: one miniature MERA root per test session (generated, never downloaded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.benchmarks.mera.mini import make_mini


@pytest.fixture(scope="session")
def mini_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_mini(tmp_path_factory.mktemp("mera") / "root")
