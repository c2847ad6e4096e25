"""The OpenAI Batch API on :class:`~omnieval.testing.fake_openai.FakeOpenAI`: ``/v1/files`` (upload,
content) and ``/v1/batches`` (create, get, cancel), answering each line as ``/chat/completions`` would.

Files live on disk and are read and written a line at a time (a 100,000-request batch costs the
server no memory). ``outcomes`` scripts how successive batches end: ``completed``; ``expired`` (the
first half of the lines answered, the rest in the error file as ``batch_expired``); ``cancelled`` (no
output); ``failed``. ``polls`` is how many status checks a batch answers ``in_progress`` first, and
``fail_every`` puts every Nth line of a batch in its error file (a partial failure).
"""

from __future__ import annotations

import itertools
import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web

__all__ = ["BatchServer", "FakeBatches"]


class BatchServer(Protocol):
    """The fake server that answers a batch's lines (``fake_openai.FakeOpenAI``)."""

    def answer_batch_line(self, body: dict[str, Any]) -> dict[str, Any]:
        """The ``/chat/completions`` reply to one line's body, counted as a valid answer sent."""
        ...


class FakeBatches:
    """Batch state of one fake server."""

    def __init__(
        self, server: BatchServer, *, outcomes: list[str] | None = None, polls: int = 0, fail_every: int = 0
    ) -> None:
        self.server = server
        self.outcomes = list(outcomes or [])
        self.polls = polls
        self.fail_every = fail_every
        self.folder = Path(tempfile.mkdtemp(prefix="fake-batches-"))
        self.files: dict[str, Path] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created: list[str] = []
        self.lines: Counter[str] = Counter()
        """Batch lines received per custom id: more than one means a resubmitted request."""
        self._ids = itertools.count(1)

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/files", self._upload)
        app.router.add_get("/v1/files/{id}/content", self._content)
        app.router.add_post("/v1/batches", self._create)
        app.router.add_get("/v1/batches/{id}", self._get)
        app.router.add_post("/v1/batches/{id}/cancel", self._cancel)

    async def _upload(self, request: web.Request) -> web.StreamResponse:
        file_id = f"file-{next(self._ids)}"
        path = self.folder / file_id
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if getattr(part, "name", None) == "file":
                with path.open("wb") as fh:
                    while chunk := await part.read_chunk():  # type: ignore[union-attr]
                        fh.write(chunk)
        if not path.exists():
            return web.json_response({"error": {"message": "no file part"}}, status=400)
        self.files[file_id] = path
        return web.json_response({"id": file_id, "object": "file", "purpose": "batch"})

    async def _content(self, request: web.Request) -> web.StreamResponse:
        path = self.files.get(request.match_info["id"])
        if path is None:
            return web.json_response({"error": {"message": "No such File object"}}, status=404)
        return web.FileResponse(path)

    async def _create(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        source = self.files.get(body.get("input_file_id", ""))
        if source is None or body.get("endpoint") != "/v1/chat/completions":
            return web.json_response({"error": {"message": "bad input_file_id or endpoint"}}, status=400)
        batch_id = f"batch_{next(self._ids)}"
        outcome = self.outcomes.pop(0) if self.outcomes else "completed"
        self.created.append(batch_id)
        batch = {
            "id": batch_id,
            "object": "batch",
            "status": "in_progress",
            "output_file_id": None,
            "error_file_id": None,
            "_outcome": outcome,
            "_polls": 0,
        }
        self._answer(batch, source)
        self.batches[batch_id] = batch
        return web.json_response(self._public(batch))

    def _answer(self, batch: dict[str, Any], source: Path) -> None:
        """Write the output and error files now; status checks reveal them after ``polls`` checks."""
        out_path, err_path = self.folder / f"{batch['id']}-out", self.folder / f"{batch['id']}-err"
        with source.open(encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        answered = n if batch["_outcome"] == "completed" else n // 2 if batch["_outcome"] == "expired" else 0
        n_out = n_err = 0
        with source.open(encoding="utf-8") as src, out_path.open("w") as out, err_path.open("w") as err:
            for i, raw in enumerate(src):
                line = json.loads(raw)
                self.lines[line["custom_id"]] += 1
                if i >= answered:
                    if batch["_outcome"] == "expired":
                        err.write(
                            json.dumps(
                                self._error(
                                    line,
                                    "batch_expired",
                                    "This request could not be executed before the completion window "
                                    "expired.",
                                )
                            )
                            + "\n"
                        )
                        n_err += 1
                    continue
                if self.fail_every and (i + 1) % self.fail_every == 0:
                    err.write(
                        json.dumps(
                            self._error(
                                line, "server_error", "The server had an error processing your request."
                            )
                        )
                        + "\n"
                    )
                    n_err += 1
                    continue
                reply = self.server.answer_batch_line(line["body"])
                out.write(
                    json.dumps(
                        {
                            "id": f"req_{i}",
                            "custom_id": line["custom_id"],
                            "response": {"status_code": 200, "request_id": f"r{i}", "body": reply},
                            "error": None,
                        }
                    )
                    + "\n"
                )
                n_out += 1
        if n_out:
            self.files[out_path.name] = out_path
            batch["_output"] = out_path.name
        if n_err:
            self.files[err_path.name] = err_path
            batch["_errors"] = err_path.name

    @staticmethod
    def _error(line: dict[str, Any], code: str, message: str) -> dict[str, Any]:
        return {
            "id": None,
            "custom_id": line["custom_id"],
            "response": None,
            "error": {"code": code, "message": message},
        }

    async def _get(self, request: web.Request) -> web.StreamResponse:
        batch = self.batches.get(request.match_info["id"])
        if batch is None:
            return web.json_response({"error": {"message": "No such Batch object"}}, status=404)
        batch["_polls"] += 1
        if batch["status"] == "in_progress" and batch["_polls"] > self.polls:
            batch["status"] = batch["_outcome"]
            if batch["_outcome"] != "cancelled":
                batch["output_file_id"], batch["error_file_id"] = batch.get("_output"), batch.get("_errors")
        return web.json_response(self._public(batch))

    async def _cancel(self, request: web.Request) -> web.StreamResponse:
        batch = self.batches.get(request.match_info["id"])
        if batch is None:
            return web.json_response({"error": {"message": "No such Batch object"}}, status=404)
        batch["status"] = "cancelled"
        return web.json_response(self._public(batch))

    @staticmethod
    def _public(batch: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in batch.items() if not k.startswith("_")}
