"""``pooling/MODEL``: a classification endpoint (vLLM pooling ``/classify``), as MERA serves its judge.

POSTs ``{"model", "input", "truncate_prompt_tokens"}`` and answers with the argmax of
``data[0].probs`` as text (probabilities in ``extra["probs"]``). Options (``--judge-backend-opt``):
``path`` (default ``/classify``), ``truncate_prompt_tokens`` (8192, MERA's value), ``sep_token``
(default ``[SEP]``) or ``tokenizer`` (a local tokenizer folder: its ``sep_token`` and MERA's
left/right truncation; without it the server truncates).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from omnieval.backends.base import Backend, BackendOptions, register_backend
from omnieval.errors import BackendError, ConfigError
from omnieval.types import Request, Response
from omnieval.types._base import Frozen

__all__ = ["PoolingBackend", "PoolingOptions"]


class PoolingOptions(Frozen):
    """``--judge-backend-opt`` keys of the pooling backend."""

    path: str = "/classify"
    """Endpoint path under the base URL."""
    truncate_prompt_tokens: int | None = 8192
    """Sent with every request (MERA's value for its judge)."""
    sep_token: str = "[SEP]"
    """Separator between question, gold and answer when no tokenizer is given."""
    tokenizer: str | None = None
    """A local tokenizer folder: its sep_token, and MERA's left/right truncation client-side."""


@register_backend("pooling")
class PoolingBackend(Backend):
    """A remote text classifier; no batching (one input per request, as MERA's scorer sends)."""

    classifies: ClassVar[bool] = True
    extra_options = PoolingOptions

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        if not options.base_url:
            raise ConfigError(
                "pooling/ needs --judge-base-url (the classification server, e.g. http://host:8000)"
            )
        settings = PoolingOptions.model_validate(options.extra)
        self.base_url = options.base_url
        self.url = options.base_url.rstrip("/") + settings.path
        self.truncate = settings.truncate_prompt_tokens
        self._sep = settings.sep_token
        self._tokenizer_path = settings.tokenizer
        self._tokenizer: Any = None
        self._client: Any = None

    def _tok(self) -> Any:
        if self._tokenizer is None and self._tokenizer_path:
            from transformers import AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(str(self._tokenizer_path))
        return self._tokenizer

    def sep_token(self) -> str:
        tok = self._tok()
        return str(tok.sep_token) if tok is not None and tok.sep_token else self._sep

    def truncations(self, text: str, *, max_tokens: int, offset: int) -> list[str]:
        tok = self._tok()
        if tok is None:
            return [text]
        tokens, keep = tok.encode(text), max_tokens - offset
        return [text] if len(tokens) <= keep else [tok.decode(tokens[:keep]), tok.decode(tokens[-keep:])]

    async def generate(self, request: Request) -> Response:
        import httpx

        if request.kind != "classify" or request.prompt is None:
            raise BackendError(
                f"pooling/ answers only classify requests (got {request.kind!r})", retryable=False
            )
        if self._client is None:
            headers = {"Authorization": f"Bearer {self.options.api_key}"} if self.options.api_key else {}
            self._client = httpx.AsyncClient(timeout=self.options.timeout_s, headers=headers)
        body = {"model": self.model, "input": request.prompt, "truncate_prompt_tokens": self.truncate}
        started = time.perf_counter()
        try:
            reply = await self._client.post(self.url, json=body)
        except httpx.HTTPError as exc:
            kind = (
                "refused"
                if isinstance(exc, httpx.ConnectError)
                else "timeout"
                if isinstance(exc, httpx.TimeoutException)
                else "connection"
            )
            raise BackendError(
                f"classification endpoint {self.url} unreachable: {type(exc).__name__}: {exc}",
                retryable=True,
                transport=kind,
                url=self.url,
            ) from exc
        if reply.status_code >= 400:
            retry = reply.status_code == 429 or reply.status_code >= 500
            raise BackendError(
                f"classification endpoint {self.url} answered HTTP {reply.status_code}: {reply.text[:200]}",
                retryable=retry,
                rate_limited=reply.status_code == 429,
                status=reply.status_code,
                url=self.url,
                server_message=reply.text[:200],
            )
        try:
            probs = [float(p) for p in reply.json()["data"][0]["probs"]]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BackendError(
                f"classification endpoint {self.url}: no data[0].probs in the reply: {reply.text[:200]}",
                retryable=False,
            ) from exc
        if not probs:
            raise BackendError(f"classification endpoint {self.url}: empty probs", retryable=False)
        label = max(range(len(probs)), key=probs.__getitem__)
        return Response(text=str(label), extra={"probs": probs}, latency_s=time.perf_counter() - started)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": "classifier", "url": self.url}

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
