"""The OpenAI Batch API (``--batch``): upload a JSONL of requests to ``/files``, create a batch on
``/batches``, poll it, and stream its output (and error) file back line by line.

The JSONL is written to disk and uploaded from it, and results are read from the response stream a
line at a time, so memory does not grow with the batch (100,000 requests in a run stay well under
300 MB: ``benchmarks/batch_rss.py``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from omnieval.backends._openai_parse import response_from
from omnieval.errors import BackendError
from omnieval.types import Request, Response

if TYPE_CHECKING:
    import aiohttp

    from omnieval.backends.base import BackendOptions

__all__ = ["BatchBackend", "BatchStatus", "OpenAIBatchClient"]

FINAL = frozenset({"completed", "failed", "expired", "cancelled"})


class BatchStatus(NamedTuple):
    """A batch as the provider reports it."""

    batch_id: str
    state: str
    output_file: str | None
    error_file: str | None

    @property
    def final(self) -> bool:
        return self.state in FINAL


class BatchBackend(Protocol):
    """What the client needs of an OpenAI-compatible backend (``openai_compat.OpenAIBackend``)."""

    base_url: str
    api_key: str | None
    options: BackendOptions

    @property
    def spec(self) -> str: ...

    async def call_body(self, request: Request) -> tuple[str, bool, dict[str, Any], dict[str, Any]]: ...


class OpenAIBatchClient:
    """One backend's Batch API calls over its base URL and key."""

    def __init__(self, backend: BatchBackend) -> None:
        self.backend = backend
        self._session: aiohttp.ClientSession | None = None

    def _http(self) -> aiohttp.ClientSession:
        import aiohttp

        if self._session is None:
            headers = {"authorization": f"Bearer {self.backend.api_key}"} if self.backend.api_key else {}
            timeout = aiohttp.ClientTimeout(total=None, sock_read=max(60.0, self.backend.options.timeout_s))
            self._session = aiohttp.ClientSession(headers=headers, timeout=timeout)
        return self._session

    def _url(self, path: str) -> str:
        return self.backend.base_url + path

    async def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        import aiohttp

        try:
            async with self._http().request(method, self._url(path), **kwargs) as reply:
                body = await reply.read()
                if not 200 <= reply.status < 300:
                    raise BackendError(
                        f"{self.backend.spec} batch API {method} {self._url(path)}: HTTP {reply.status}: "
                        f"{body[:500].decode('utf-8', 'replace')}",
                        retryable=reply.status == 429 or reply.status >= 500,
                        status=reply.status,
                    )
                return json.loads(body)  # type: ignore[no-any-return]
        except aiohttp.ClientError as exc:
            raise BackendError(
                f"{self.backend.spec} batch API {method} {self._url(path)}: connection failed: {exc}",
                retryable=True,
            ) from None

    async def line(self, custom_id: str, request: Request) -> dict[str, Any]:
        """One line of the batch input: the request body exactly as ``generate`` would post it."""
        path, _, payload, _ = await self.backend.call_body(request)
        return {"custom_id": custom_id, "method": "POST", "url": "/v1" + path, "body": payload}

    async def submit(self, jsonl: Path, *, endpoint: str = "/v1/chat/completions") -> str:
        """Upload the file (streamed from disk) and create the batch; returns its id."""
        import aiohttp

        with jsonl.open("rb") as fh:
            form = aiohttp.FormData()
            form.add_field("purpose", "batch")
            form.add_field("file", fh, filename=jsonl.name, content_type="application/jsonl")
            uploaded = await self._json("POST", "/files", data=form)
        batch = await self._json(
            "POST",
            "/batches",
            json={"input_file_id": uploaded["id"], "endpoint": endpoint, "completion_window": "24h"},
        )
        return str(batch["id"])

    async def status(self, batch_id: str) -> BatchStatus:
        data = await self._json("GET", f"/batches/{batch_id}")
        return BatchStatus(
            batch_id, str(data.get("status")), data.get("output_file_id"), data.get("error_file_id")
        )

    async def cancel(self, batch_id: str) -> None:
        await self._json("POST", f"/batches/{batch_id}/cancel")

    async def results(self, status: BatchStatus) -> AsyncIterator[tuple[str, Response | str]]:
        """``(custom_id, response)`` per answered line, ``(custom_id, why)`` per failed one."""
        for file_id in (status.output_file, status.error_file):
            if file_id:
                async for raw in self._lines(file_id):
                    yield self._result(json.loads(raw), status.batch_id)

    async def _lines(self, file_id: str) -> AsyncIterator[bytes]:
        import aiohttp

        try:
            async with self._http().get(self._url(f"/files/{file_id}/content")) as reply:
                if reply.status != 200:
                    body = (await reply.read())[:500].decode("utf-8", "replace")
                    raise BackendError(
                        f"{self.backend.spec} batch file {file_id}: HTTP {reply.status}: {body}",
                        retryable=True,
                    )
                async for raw in reply.content:
                    if raw.strip():
                        yield raw
        except aiohttp.ClientError as exc:
            raise BackendError(f"{self.backend.spec} batch file {file_id}: {exc}", retryable=True) from None

    def _result(self, item: dict[str, Any], batch_id: str) -> tuple[str, Response | str]:
        custom_id = str(item.get("custom_id"))
        response = item.get("response") or {}
        where = f"{self.backend.spec} batch {batch_id} request {custom_id}"
        if item.get("error") or response.get("status_code") != 200:
            error = item.get("error") or response.get("body") or {}
            return (
                custom_id,
                f"{where}: HTTP {response.get('status_code')}: {json.dumps(error, ensure_ascii=False)[:500]}",
            )
        try:
            return custom_id, response_from(response["body"], chat=True, where=where, latency=0.0, media={})
        except BackendError as exc:
            return custom_id, str(exc)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
