"""The HTTP layer of the ``openai`` backend: one pooled client, failures reduced to three kinds.

Plain-http servers get the raw asyncio client (``_rawhttp``, about 0.05 ms of CPU per request),
https ones aiohttp (about 0.13 ms); httpx costs 1-2 ms at 64 connections, against a harness budget
of 0.5 ms per sample, so it is used only when an ``httpx`` transport is handed in (tests use
MockTransport) or asked for with ``http_client=httpx``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from omnieval.backends._transport import LineSink, Poster, Reply, TransportFailure, connection_kind

__all__ = ["AiohttpPoster", "HttpxPoster", "make_poster"]


class HttpxPoster(Poster):
    """httpx.AsyncClient; used when a transport is injected or aiohttp is not installed."""

    streams = True

    def __init__(
        self, base_url: str, *, headers: dict[str, str], timeout_s: float, limit: int, transport: Any = None
    ) -> None:
        import httpx

        self._httpx = httpx
        self._client = httpx.AsyncClient(
            base_url=base_url,
            timeout=httpx.Timeout(timeout_s),
            limits=httpx.Limits(max_connections=limit, max_keepalive_connections=limit),
            headers=headers,
            transport=transport,
        )

    @contextlib.contextmanager
    def _failures(self) -> Iterator[None]:
        """httpx's exceptions as the few kinds the backend tells apart."""
        httpx = self._httpx
        try:
            yield
        except httpx.TimeoutException as exc:
            raise TransportFailure("timeout", type(exc).__name__) from exc
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise TransportFailure("url", str(exc)) from exc
        except httpx.TransportError as exc:
            raise TransportFailure(connection_kind(exc), f"{type(exc).__name__}: {exc}") from exc

    async def post(self, path: str, body: bytes) -> Reply:
        with self._failures():
            resp = await self._client.post(path, content=body)
        return Reply(resp.status_code, resp.headers.get("retry-after"), resp.content)

    async def post_stream(self, path: str, body: bytes, on_line: LineSink) -> Reply:
        with self._failures():
            async with self._client.stream("POST", path, content=body) as resp:
                if not 200 <= resp.status_code < 300:
                    return Reply(resp.status_code, resp.headers.get("retry-after"), await resp.aread())
                async for line in resp.aiter_lines():
                    on_line(line.encode())
                return Reply(resp.status_code, None, b"")

    async def aclose(self) -> None:
        await self._client.aclose()


class AiohttpPoster(Poster):
    """aiohttp.ClientSession over a TCPConnector limited to the backend's concurrency."""

    streams = True

    def __init__(self, base_url: str, *, headers: dict[str, str], timeout_s: float, limit: int) -> None:
        import aiohttp

        self._aiohttp = aiohttp
        self._base = base_url.rstrip("/")
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=limit, limit_per_host=0),
            timeout=aiohttp.ClientTimeout(total=timeout_s),
            headers=headers,
        )

    @contextlib.contextmanager
    def _failures(self) -> Iterator[None]:
        """aiohttp's exceptions as the few kinds the backend tells apart."""
        aiohttp = self._aiohttp
        try:
            yield
        except TimeoutError as exc:
            raise TransportFailure("timeout", type(exc).__name__) from exc
        except aiohttp.InvalidURL as exc:
            raise TransportFailure("url", str(exc)) from exc
        except aiohttp.ClientError as exc:
            raise TransportFailure(connection_kind(exc), f"{type(exc).__name__}: {exc}") from exc

    async def post(self, path: str, body: bytes) -> Reply:
        with self._failures():
            async with self._session.post(self._base + path, data=body) as resp:
                content = await resp.read()
                return Reply(resp.status, resp.headers.get("Retry-After"), content)

    async def post_stream(self, path: str, body: bytes, on_line: LineSink) -> Reply:
        with self._failures():
            async with self._session.post(self._base + path, data=body) as resp:
                if not 200 <= resp.status < 300:
                    return Reply(resp.status, resp.headers.get("Retry-After"), await resp.read())
                async for line in resp.content:
                    on_line(line.rstrip(b"\r\n"))
                return Reply(resp.status, None, b"")

    async def aclose(self) -> None:
        await self._session.close()


def make_poster(
    base_url: str,
    *,
    headers: dict[str, str],
    timeout_s: float,
    limit: int,
    transport: Any = None,
    client: str | None = None,
    stream: bool = False,
) -> Poster:
    """Pick the client: an injected httpx transport wins; ``auto`` is aiohttp (a well-kept library);
    ``raw`` (plain http:// only) is our minimal keep-alive client, about 0.1 ms/request cheaper, with no
    streaming (``stream`` picks aiohttp instead)."""
    if transport is not None or client == "httpx":
        return HttpxPoster(base_url, headers=headers, timeout_s=timeout_s, limit=limit, transport=transport)
    if client == "raw" and base_url.startswith("http://") and not stream:
        from omnieval.backends._rawhttp import RawHttpPoster

        return RawHttpPoster(base_url, headers=headers, timeout_s=timeout_s, limit=limit)
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return HttpxPoster(base_url, headers=headers, timeout_s=timeout_s, limit=limit)
    return AiohttpPoster(base_url, headers=headers, timeout_s=timeout_s, limit=limit)
