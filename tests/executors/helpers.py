"""Shared pieces of the executor tests: a fake server that measures concurrency, tasks, run configs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiohttp import web

from omnieval.backends import BackendOptions
from omnieval.runner import RunConfig
from omnieval.testing.fake_openai import FakeOpenAI
from tests.backends.e2e_helpers import write_task


class CountingServer(FakeOpenAI):
    """The fake OpenAI server, also counting requests in flight at once (what a rate limit sees)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(answer_pattern=r"\[(\d+)\]", **kwargs)
        self.concurrent = 0
        self.peak = 0

    async def _handle(self, request: web.Request, *, chat: bool) -> web.StreamResponse:
        self.concurrent += 1
        self.peak = max(self.peak, self.concurrent)
        try:
            return await super()._handle(request, chat=chat)
        finally:
            self.concurrent -= 1


def dialog_task(root: Path, n_dialogs: int = 3, turns: int = 3) -> Path:
    """A chain task: each dialog's turns must run in order with the model's own earlier answers."""
    rows = [
        {
            "id": f"d{d}-{t}",
            "question": f"dialog {d} turn {t} [{t}]",
            "answer": str(t % 2),
            "dialog": d,
            "turn": t,
        }
        for d in range(n_dialogs)
        for t in range(turns)
    ]
    (root / "dlg.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = root / "dlg.yaml"
    spec.write_text(
        "name: dlg\nsource: {type: jsonl, path: dlg.jsonl, fields: {chain: dialog, chain_index: turn}}\n",
        encoding="utf-8",
    )
    return spec


def qa_task(root: Path, n: int) -> Path:
    return write_task(root / "qa.jsonl", n)


def config(tasks: list[str], url: str, out: Path, *, concurrency: int = 4, **kw: Any) -> RunConfig:
    options = BackendOptions(base_url=url, concurrency=concurrency, timeout_s=30)
    return RunConfig(tasks=tuple(tasks), model="openai/fake", output=out, backend=options, quiet=True, **kw)


def records(out: Path) -> list[dict[str, Any]]:
    lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def record_set(out: Path) -> set[str]:
    """Records as a set; ``latency_s`` (each call's wall time) is the one field two runs never share."""
    return {
        json.dumps({k: v for k, v in r.items() if k != "latency_s"}, sort_keys=True) for r in records(out)
    }


def results(out: Path) -> dict[str, Any]:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))
