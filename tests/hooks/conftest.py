"""Hook test helpers: a small JSONL task whose oracle run has a known score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def qa_task(tmp_path: Path) -> Path:
    """Ten questions; ``replay`` answers below get 7 of them right."""
    rows = [{"id": str(i), "question": f"{i}+{i}=?", "answer": str(2 * i)} for i in range(10)]
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def replay_answers(tmp_path: Path) -> Path:
    rows = [{"task": "qa", "sample_id": str(i), "response": str(2 * i if i < 7 else 99)} for i in range(10)]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
