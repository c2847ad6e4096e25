"""What every HTTP client of the backends shares: the reply they need, a transport failure reduced to
one of a few kinds, and the poster interface (``_openai_http`` picks the client, ``_rawhttp`` is one)."""

from __future__ import annotations

import errno
import socket
import ssl
from collections.abc import Callable
from typing import Literal, NamedTuple

__all__ = ["FailureKind", "LineSink", "Poster", "Reply", "TransportFailure", "connection_kind"]

FailureKind = Literal["timeout", "connection", "url", "refused", "dns", "tls"]
_REFUSED = f"[Errno {errno.ECONNREFUSED}]"


def _links(exc: BaseException) -> list[BaseException | None]:
    """Where a client library keeps the underlying error (aiohttp: os_error, certificate_error)."""
    return [
        getattr(exc, "os_error", None),
        getattr(exc, "certificate_error", None),
        exc.__cause__,
        exc.__context__,
    ]


def connection_kind(exc: BaseException) -> FailureKind:
    """``refused``, ``dns`` or ``tls`` when the error chain shows one (a dead or wrong endpoint),
    else ``connection`` (a reset or another fault that a retry may cure)."""
    stack: list[BaseException | None] = [exc]
    seen: set[int] = set()
    while stack:
        err = stack.pop()
        if err is None or id(err) in seen:
            continue
        seen.add(id(err))
        name = type(err).__name__
        if isinstance(err, ConnectionRefusedError) or (isinstance(err, OSError) and _REFUSED in str(err)):
            return (
                "refused"  # asyncio joins per-address failures into one OSError("Multiple exceptions: ...")
            )
        if isinstance(err, socket.gaierror) or "DNS" in name:
            return "dns"
        if isinstance(err, ssl.SSLError | ssl.CertificateError) or "SSL" in name or "Certificate" in name:
            return "tls"
        stack.extend(_links(err))
    return "connection"


class Reply(NamedTuple):
    """What the backend needs from an HTTP response."""

    status: int
    retry_after: str | None
    content: bytes


class TransportFailure(Exception):
    """No HTTP response at all: a timeout, a connection failure or an unusable URL."""

    def __init__(self, kind: FailureKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


LineSink = Callable[[bytes], None]
"""Receives each line of a streamed answer as it arrives (server-sent events)."""


class Poster:
    """POST JSON bytes to ``base_url + path``; implementations share one connection pool."""

    streams = False
    """True when :meth:`post_stream` is implemented."""

    async def post(self, path: str, body: bytes) -> Reply:
        raise NotImplementedError

    async def post_stream(self, path: str, body: bytes, on_line: LineSink) -> Reply:
        """POST and hand a 2xx answer's lines to ``on_line`` as they arrive (the returned reply's content is
        then empty); any other answer is returned whole. A connection cut midway is a
        :class:`TransportFailure`."""
        raise NotImplementedError

    async def aclose(self) -> None:
        return None
