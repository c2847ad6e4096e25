"""The executor tests' local Ray cluster: one per test module (Ray starts slowly; modules that need worker
set-up hooks define their own ``cluster``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(
        address="local", num_cpus=4, include_dashboard=False, log_to_driver=False
    )  # never another's cluster
    yield ray
    ray.shutdown()
