"""One backend used by several parties: kept open by each, optionally under a global gate.

A Ray worker runs many shards with one backend (one model load per replica) while the runner closes
its backend when a run ends, so the wrapper ignores that close; an API model's requests each take a
slot of the endpoint's gate first, so all workers together never exceed ``--concurrency``. A run
whose judge is the model under test itself judges with the loaded model, under the judge's own
options (batch size, pool).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from omnieval.backends.base import Backend, BackendOptions
from omnieval.types import Request, Response

__all__ = ["CAPABILITIES", "Gate", "SharedBackend", "capabilities", "share"]


class Gate(Protocol):
    """Async slot acquisition (the Ray gate actor's handle, or a local stand-in in tests)."""

    async def acquire(self) -> None: ...

    def release(self) -> None: ...


class SharedBackend(Backend):
    """Delegates to ``inner``; provider, model and capabilities are copied so fingerprints match.
    ``options``: the user's own (a judge's batch size and pool); default: ``inner``'s."""

    def __init__(self, inner: Backend, *, gate: Gate | None, options: BackendOptions | None = None) -> None:
        super().__init__(inner.model, options=options or inner.options)
        self.inner = inner
        self.gate = gate

    async def generate(self, request: Request) -> Response:
        if self.gate is None:
            return await self.inner.generate(request)
        await self.gate.acquire()
        try:
            return await self.inner.generate(request)
        finally:
            self.gate.release()

    async def generate_many(self, requests: Sequence[Request]) -> list[Response | BaseException]:
        if self.gate is None:
            return await self.inner.generate_many(requests)
        return await super().generate_many(requests)  # one slot per request

    def max_connections(self) -> int:
        return self.inner.max_connections()

    def accepts(self) -> frozenset[str]:
        return self.inner.accepts()

    def declined(self) -> dict[str, str]:
        return self.inner.declined()

    def fingerprint_name(self) -> str:
        return self.inner.fingerprint_name()

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def sep_token(self) -> str:
        return self.inner.sep_token()

    def truncations(self, text: str, *, max_tokens: int, offset: int) -> list[str]:
        return self.inner.truncations(text, max_tokens=max_tokens, offset=offset)

    def identity(self) -> str:
        return self.inner.identity()

    def endpoint(self) -> str:
        return self.inner.endpoint()

    async def aclose(self) -> None:
        """Kept open: the worker closes the inner backend when it stops."""


CAPABILITIES = (
    "provider",
    "modalities",
    "prefers_batches",
    "caches_responses",
    "classifies",
    "streams",
    "extra_options",
    "option_model",
)
"""A backend's class-level attributes that a stand-in must carry (a judge reads ``classifies``; the
base class checks ``options.extra`` against ``option_model``: a cascade's are its text model's)."""


def capabilities(backend: Backend) -> dict[str, Any]:
    return {name: getattr(backend, name) for name in CAPABILITIES}


def share(inner: Backend, *, gate: Gate | None, options: BackendOptions | None = None) -> SharedBackend:
    """Wrap ``inner`` in a subclass carrying its class-level capabilities (provider, modalities...)."""
    cls = type(f"Shared{type(inner).__name__}", (SharedBackend,), capabilities(inner))
    return cls(inner, gate=gate, options=options)
