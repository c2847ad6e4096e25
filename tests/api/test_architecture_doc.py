"""docs/architecture.md's layer table names every package and top-level module of ``omnieval`` (issue 21:
platform, api, executors, protect, textkit and testing were missing from it)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_layer_table_names_every_package() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = doc.split("```", 2)[1]  # the first code block: the layers
    named = set(re.findall(r"[a-z_]+", table))
    source = ROOT / "src" / "omnieval"
    packages = {p.name for p in source.iterdir() if (p / "__init__.py").is_file()}
    modules = {p.stem for p in source.glob("*.py") if not p.stem.startswith("__")}
    assert packages >= {"platform", "executors", "protect", "textkit", "testing"}
    assert sorted((packages | modules) - named) == []
