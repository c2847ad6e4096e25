"""Engine test helpers: a scripted in-process backend and small task files."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from omnieval.backends import Backend, BackendOptions, backends
from omnieval.errors import BackendError
from omnieval.types import Request, Response


class ScriptedBackend(Backend):
    """Answers through a Python function; counts calls per sample."""

    provider = "scripted"
    modalities: ClassVar[frozenset[str]] = frozenset({"text", "image"})
    answer: ClassVar[Callable[[Request], Response | str]] = staticmethod(
        lambda r: r.targets[0] if r.targets else ""
    )
    calls: ClassVar[Counter[str]] = Counter()
    seen: ClassVar[list[Request]] = []

    async def generate(self, request: Request) -> Response:
        type(self).calls[f"{request.task}/{request.sample_id}"] += 1
        type(self).seen.append(request)
        out = type(self).answer(request)
        return out if isinstance(out, Response) else Response.from_text(out)


if "scripted" not in backends:
    backends.add("scripted", ScriptedBackend)


@pytest.fixture
def scripted() -> type[ScriptedBackend]:
    ScriptedBackend.calls = Counter()
    ScriptedBackend.seen = []
    ScriptedBackend.answer = staticmethod(lambda r: r.targets[0] if r.targets else "")
    return ScriptedBackend


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def qa_file(tmp_path: Path) -> Path:
    rows = [{"id": str(i), "question": f"Сколько будет {i}+{i}?", "answer": str(2 * i)} for i in range(10)]
    return write_jsonl(tmp_path / "qa.jsonl", rows)


def read_samples(out: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines() if line
    ]


def options() -> BackendOptions:
    return BackendOptions(concurrency=4)


def raise_backend_error(message: str, **kw: Any) -> Response:
    raise BackendError(message, **kw)
