"""Every ``python`` example in docs/api/index.md runs, in order, in one empty folder (each block's asserts
are the expected outcomes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "api" / "index.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_doc_has_an_example_of_each_function() -> None:
    code = "\n".join(BLOCKS)
    for name in ("evaluate", "load_results", "score", "rejudge", "compare", "report", "sweep"):
        assert f"omnieval.{name}(" in code, name


def test_every_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "docs_api"}
    for i, block in enumerate(BLOCKS):
        try:
            exec(compile(block, f"{DOC}:block{i + 1}", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"docs/api/index.md example {i + 1} failed: {exc!r}\n{block}") from exc
