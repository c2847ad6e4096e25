"""Shared fixtures: one miniature MERA root per test session (generated, never downloaded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.benchmarks.mera.mini import make_mini
from omnieval.types import TaskSpec


@pytest.fixture(scope="session")
def mini_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_mini(tmp_path_factory.mktemp("mera") / "root")


def task_spec_of(name: str) -> TaskSpec:
    """The imported spec of catalogue task ``name`` (no data needed)."""
    from omnieval.benchmarks.mera.catalog import catalogue
    from omnieval.benchmarks.mera.specs import task_spec

    return task_spec(catalogue().by_name()[name], dataset_dir=Path("."))
