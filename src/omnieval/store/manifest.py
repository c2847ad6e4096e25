"""``manifest.json``: everything needed to know how a run was made."""

from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
import sys
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["environment_info", "prefetch_environment", "read_json", "write_json"]

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


_facts_lock = threading.Lock()


def _slow_facts() -> tuple[str | None, str, dict[str, str]]:
    """The git commit, the platform string and the library versions: two subprocesses (``git``, ``uname
    -p``) and a metadata scan, each done once per process (the lock: a prefetch and a reader never
    both do it)."""
    with _facts_lock:
        return _git_commit(), platform.platform(), _versions()


def prefetch_environment() -> None:
    """Gather :func:`environment_info`'s slow facts on a thread now: a run's first manifest, written
    before its first request, then finds them ready instead of waiting on the subprocesses."""
    threading.Thread(target=_slow_facts, name="omnieval-environment", daemon=True).start()


def environment_info() -> dict[str, Any]:
    """omnieval version and commit, Python, libraries and hardware."""
    from omnieval.version import __version__

    commit, system, versions = _slow_facts()
    return {
        "omnieval_version": __version__,
        "git_commit": commit,
        "python": sys.version.split()[0],
        "platform": system,
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "libraries": dict(versions),
    }


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (temp file + rename)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
