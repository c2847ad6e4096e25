"""Losing the driver's own Ray node (its raylet's socket closes under the driver) ends the run with one
line and the resumable exit code, not Ray's ``OSError: Broken pipe`` traceback; a file error stays
itself."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from omnieval.cli.app import app
from omnieval.executors import ray_executor


def _task(tmp_path: Path) -> Path:
    path = tmp_path / "quiz.jsonl"
    path.write_text(json.dumps({"id": "q0", "question": "2+2?", "answer": "4"}) + "\n", encoding="utf-8")
    return path


def _run_failing_with(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, exc: BaseException) -> Any:
    def failing(*_args: Any, **_kwargs: Any) -> Any:
        raise exc

    monkeypatch.setattr(ray_executor, "import_ray", lambda: object())
    monkeypatch.setattr(ray_executor, "connect", lambda _options: False)
    monkeypatch.setattr(ray_executor, "_run", failing)
    args = ["run", "--tasks", f"jsonl:{_task(tmp_path)}", "--model", "openai/m", "--base-url", "http://x/v1"]
    return CliRunner().invoke(app, [*args, "--executor", "ray", "--output", str(tmp_path / "out"), "-q"])


def test_a_broken_pipe_to_the_local_raylet_is_one_resumable_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    result = _run_failing_with(monkeypatch, tmp_path, BrokenPipeError(errno.EPIPE, "Broken pipe"))
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert "lost the driver's Ray node" in lines[0] and "run the same command again to resume" in lines[0]


def test_a_file_error_is_not_taken_for_a_lost_node(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    result = _run_failing_with(monkeypatch, tmp_path, OSError(errno.ENOSPC, "No space left on device"))
    assert isinstance(result.exception, OSError) and result.exception.errno == errno.ENOSPC
