"""``manifest.json``: everything needed to know how a run was made."""

from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["environment_info", "read_json", "write_json"]

_LIBRARIES = (
    "pydantic",
    "httpx",
    "numpy",
    "pillow",
    "soundfile",
    "soxr",
    "av",
    "pyarrow",
    "jinja2",
    "torch",
    "transformers",
    "vllm",
    "datasets",
    "sacrebleu",
    "sympy",
    "rapidfuzz",
)


@functools.cache  # fixed for the running process; a Ray worker writes a manifest per shard
def _git_commit() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


@functools.cache
def _versions() -> dict[str, str]:
    found = {}
    for name in _LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def environment_info() -> dict[str, Any]:
    """omnieval version and commit, Python, libraries and hardware."""
    from omnieval import __version__

    return {
        "omnieval_version": __version__,
        "git_commit": _git_commit(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "libraries": dict(_versions()),
    }


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (temp file + rename)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
