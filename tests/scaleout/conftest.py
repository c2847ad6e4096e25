"""Fixtures of the scale-out tests: a real one-node Slurm, the project's fake OpenAI server, a task file."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from omnieval.testing.fake_openai import FakeOpenAI
from tests.scaleout.slurm import SlurmCluster, available, slurm_cluster


@pytest.fixture(scope="module")
def slurm() -> Iterator[SlurmCluster]:
    """Started for the test, as PostgreSQL is; missing Slurm fails in CI (scripts/system_deps.sh installs
    it) and skips elsewhere."""
    if not available():
        why = (
            "Slurm (slurm-wlm, munge) is not installed or not run as root; scripts/system_deps.sh installs it"
        )
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    with slurm_cluster() as cluster:
        yield cluster


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI().in_thread() as fake:
        yield fake


QUIZ_SIZE = 20


@pytest.fixture(scope="module")
def quiz(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("task") / "quiz.jsonl"
    rows = [
        {"id": f"q{i}", "question": f"Вопрос {i}: ответ [{i % 3}]", "answer": str(i % 2)} for i in range(20)
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path
