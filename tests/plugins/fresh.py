"""Run code in a fresh interpreter: what a lookup imports is read from a ``sys.modules`` that starts
empty."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path


def fresh_python(code: str, *, cwd: Path, pythonpath: Path | None = None) -> dict[str, object]:
    """Run ``code`` (``pythonpath`` first on the path) and return the JSON it prints last."""
    env = None
    if pythonpath is not None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pythonpath), *sys.path])}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]
