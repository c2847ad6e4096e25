"""``--batch``: requests go to the provider's batch API in groups instead of one HTTP call each.

Workers call :meth:`ProviderBatcher.generate` as they would the backend; requests are grouped (up to
``size``, or whatever is ready after ``wait_s``), written to a JSONL file, submitted, and polled. Each
batch id and its requests' ids (their cache fingerprints) are appended to ``OUTPUT/batches.jsonl``
*before* anyone waits on it, so a killed run, resumed, finds a request's batch there and polls it
again instead of submitting the request a second time. A request the batch could not answer (a failed
line, or a batch that expired, was cancelled or failed) raises a retryable error once; the runner's
retry then sends it on its own (``backend.generate``), with the usual retries and backoff.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from omnieval.backends import Backend
from omnieval.errors import BackendError, ConfigError
from omnieval.types import Request, Response

__all__ = ["ProviderBatcher", "check_batch_support"]


def check_batch_support(backend: Backend) -> None:
    """``--batch-api`` needs a backend with a provider batch API (before any request)."""
    if backend.batch_api is None:
        raise ConfigError(
            f"--batch-api: backend {backend.provider!r} ({backend.spec}) has no provider batch API; "
            "--batch-api works with openai/ (Batch API) and anthropic/ (Message Batches). Run without "
            "--batch-api."
        )


class ProviderBatcher:
    """Groups requests into provider batches; resumes the batches recorded in ``ledger``."""

    def __init__(
        self, backend: Backend, *, ledger: Path, size: int, poll_s: float, wait_s: float = 0.5
    ) -> None:
        check_batch_support(backend)
        self.backend = backend
        self.client: Any = backend.batch_client()  # type: ignore[attr-defined]
        self.ledger = ledger
        self.size = max(1, size)
        self.poll_s = poll_s
        self.wait_s = wait_s
        self.submitted = 0
        self._recorded: dict[str, str] = {}
        """custom id → the batch it was submitted in (this run's and earlier invocations')."""
        self._batches: dict[str, list[str]] = self._read_ledger()
        """batch id → its requests' custom ids."""
        self._waiters: dict[str, asyncio.Future[Response]] = {}
        self._ready: dict[str, Response | str] = {}
        self._direct: set[str] = set()
        """Requests a batch could not answer: they go to ``backend.generate`` from now on."""
        self._group: list[tuple[str, Request]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._polls: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots: asyncio.Semaphore | None = None
        """Single requests (fallbacks) keep the backend's own connection limit."""

    def _read_ledger(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        if not self.ledger.exists():
            return out
        with self.ledger.open(encoding="utf-8") as fh:
            for line in fh:
                if line.endswith("\n"):  # a line cut by a kill was never acted on: its batch was not recorded
                    entry = json.loads(line)
                    out[entry["batch_id"]] = entry["ids"]
                    self._recorded.update(dict.fromkeys(entry["ids"], entry["batch_id"]))
        return out

    async def generate(self, request: Request) -> Response:
        custom_id = request.fingerprint(backend=self.backend.provider, model=self.backend.model)
        if custom_id in self._direct:
            self._slots = self._slots or asyncio.Semaphore(self.backend.max_connections())
            async with self._slots:
                return await self.backend.generate(request)
        ready = self._ready.pop(custom_id, None)
        if ready is not None:
            return self._deliver(custom_id, ready)
        future: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self._waiters[custom_id] = future
        batch_id = self._recorded.get(custom_id)
        if batch_id is not None:  # submitted by this or an earlier invocation: poll it, never resubmit
            self._poll(batch_id)
        else:
            self._group.append((custom_id, request))
            if len(self._group) >= self.size:
                self._flush()
            elif self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(self.wait_s, self._flush)
        return await future

    def _deliver(self, custom_id: str, result: Response | str) -> Response:
        if isinstance(result, Response):
            return result
        self._direct.add(custom_id)
        raise BackendError(f"{result}; sending it on its own", retryable=True)

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        group, self._group = self._group[: self.size], self._group[self.size :]
        if group:
            self._spawn(self._submit(group))
        if self._group:
            self._timer = asyncio.get_running_loop().call_later(self.wait_s, self._flush)

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _submit(self, group: list[tuple[str, Request]]) -> None:
        try:
            with tempfile.TemporaryDirectory(prefix="omnieval-batch-") as tmp:
                path = Path(tmp) / "requests.jsonl"
                with path.open("w", encoding="utf-8") as fh:  # streamed to disk, one line at a time
                    for custom_id, request in group:
                        fh.write(
                            json.dumps(await self.client.line(custom_id, request), ensure_ascii=False) + "\n"
                        )
                batch_id = await self.client.submit(path)
        except Exception as exc:  # the group could not be submitted: each request goes on its own
            self._fail([c for c, _ in group], f"batch submission failed: {exc}")
            return
        ids = [c for c, _ in group]
        with self.ledger.open(
            "a", encoding="utf-8"
        ) as fh:  # before anyone waits: a kill now resumes by polling
            fh.write(json.dumps({"batch_id": batch_id, "ids": ids}) + "\n")
            fh.flush()
        self._recorded.update(dict.fromkeys(ids, batch_id))
        self._batches[batch_id] = ids
        self.submitted += 1
        self._poll(batch_id)

    def _poll(self, batch_id: str) -> None:
        if batch_id not in self._polls:
            self._polls[batch_id] = self._spawn(self._collect(batch_id))

    async def _collect(self, batch_id: str) -> None:
        ids = self._batches.get(batch_id, [])
        try:
            while not (status := await self.client.status(batch_id)).final:
                await asyncio.sleep(self.poll_s)
            async for custom_id, result in self.client.results(status):
                self._resolve(custom_id, result)
        except Exception as exc:
            self._fail(ids, f"batch {batch_id}: {exc}")
            return
        missing = f"batch {batch_id} ended {status.state} without an answer to this request"
        self._fail(ids, missing)  # whatever the batch left unanswered (expired, cancelled, failed)

    def _resolve(self, custom_id: str, result: Response | str) -> None:
        future = self._waiters.pop(custom_id, None)
        if future is None:
            if custom_id in self._recorded:
                self._ready[custom_id] = result  # a resumed batch's request the runner has not asked for yet
            return
        if future.done():
            return
        if isinstance(result, Response):
            future.set_result(result)
        else:
            self._direct.add(custom_id)
            future.set_exception(BackendError(f"{result}; sending it on its own", retryable=True))

    def _fail(self, ids: list[str], why: str) -> None:
        for custom_id in ids:
            if custom_id in self._waiters:
                self._resolve(custom_id, why)

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.client.aclose()
