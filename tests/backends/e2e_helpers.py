"""Shared helpers for the end-to-end backend tests: task files, CLI runs, reading run outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def omnieval_cmd() -> list[str]:
    script = Path(sys.executable).with_name("omnieval")
    return (
        [str(script)] if script.is_file() else [sys.executable, "-c", "from omnieval.cli import main; main()"]
    )


def write_task(path: Path, n: int) -> Path:
    """``n`` questions; the fake server answers with the bracketed token, right for two in five."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            given = i % 5 if i % 5 < 2 else (i + 1) % 5
            row = {"id": f"q{i}", "question": f"Вопрос {i}: ответ [{given}]", "answer": str(i % 5)}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def run_args(task: Path, url: str, out: Path, *extra: str) -> list[str]:
    cmd = [*omnieval_cmd(), "run", "--tasks", f"jsonl:{task}", "--model", "openai/fake", "--base-url", url]
    return [*cmd, "--output", str(out), "--quiet", *extra]


def run_cli(args: list[str], *, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, (
        f"omnieval run failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    return proc


def read_samples(out: Path) -> list[dict[str, Any]]:
    lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def outcome(rows: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    """What must not depend on crashes or retries: per sample state, answer and score."""
    return {r["sample_id"]: (r["state"], r["response"], r["score"], r["metrics"]) for r in rows}
