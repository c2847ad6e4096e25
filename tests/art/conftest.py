"""One small generated ART set per test session (2 instances per template: all 55 templates, both answers)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="ART speech needs espeak-ng")


@pytest.fixture(scope="session")
def tiny_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("espeak-ng") is None:
        pytest.skip("ART speech needs espeak-ng")
    from omnieval.benchmarks.art.generator import generate_art

    out = tmp_path_factory.mktemp("art") / "tiny"
    generate_art(out, per_template=2, seed=5, workers=2)
    return out


@pytest.fixture(scope="session")
def tiny_rows(tiny_set: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in (tiny_set / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    ]


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMNIEVAL_CACHE", str(tmp_path / "cache"))
