"""Anthropic Message Batches (``--batch`` with ``anthropic/``): the same interface as the OpenAI client
(:mod:`omnieval.backends.openai_batch`) over the SDK's ``messages.batches`` (create, retrieve, results).
The request file the runner writes is read back a line at a time into the create call's ``requests``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

from omnieval.backends.anthropic_messages import message_response, status_error
from omnieval.backends.openai_batch import BatchStatus
from omnieval.errors import BackendError
from omnieval.types import Request, Response

__all__ = ["AnthropicBatchClient", "MessagesBackend"]

STATES = {"in_progress": "in_progress", "canceling": "in_progress", "ended": "completed"}


class MessagesBackend(Protocol):
    """What the client needs of the backend (``anthropic_backend.AnthropicBackend``)."""

    client: Any
    """The SDK's ``AsyncAnthropic``."""

    @property
    def spec(self) -> str: ...

    def body(self, request: Request) -> tuple[dict[str, Any], dict[str, Any]]: ...


class AnthropicBatchClient:
    """One backend's Message Batches calls."""

    def __init__(self, backend: MessagesBackend) -> None:
        self.backend = backend

    async def line(self, custom_id: str, request: Request) -> dict[str, Any]:
        params, _ = self.backend.body(request)
        sampling = {k: params.pop(k) for k in ("temperature", "top_p") if k in params}
        return {"custom_id": custom_id, "params": params | sampling}

    async def _call(self, what: str, coro: Any) -> Any:
        import anthropic

        try:
            return await coro
        except anthropic.APIStatusError as exc:
            raise status_error(exc, f"{self.backend.spec} message batches {what}") from None
        except anthropic.APIConnectionError as exc:
            raise BackendError(f"{self.backend.spec} message batches {what}: {exc}", retryable=True) from None

    async def submit(self, jsonl: Path) -> str:
        with jsonl.open(encoding="utf-8") as fh:
            requests = [json.loads(line) for line in fh]
        batch = await self._call("create", self.backend.client.messages.batches.create(requests=requests))
        return str(batch.id)

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._call("retrieve", self.backend.client.messages.batches.retrieve(batch_id))
        return BatchStatus(
            batch_id, STATES.get(str(batch.processing_status), "completed"), batch.results_url, None
        )

    async def results(self, status: BatchStatus) -> AsyncIterator[tuple[str, Response | str]]:
        decoder = await self._call("results", self.backend.client.messages.batches.results(status.batch_id))
        async for item in decoder:
            result = item.result
            where = f"{self.backend.spec} batch {status.batch_id} request {item.custom_id}"
            if result.type == "succeeded":
                yield item.custom_id, message_response(result.message, latency=0.0, media={})
            elif result.type == "errored":
                yield (
                    item.custom_id,
                    f"{where}: errored: {json.dumps(result.error.model_dump(), ensure_ascii=False)[:500]}",
                )
            else:
                yield item.custom_id, f"{where}: {result.type}"

    async def aclose(self) -> None:
        return None
