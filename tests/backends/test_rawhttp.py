"""The raw asyncio HTTP client against a scripted TCP server: framing, reuse, failures."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Callable

import pytest

from omnieval.backends._openai_http import AiohttpPoster, HttpxPoster, make_poster
from omnieval.backends._rawhttp import RawHttpPoster
from omnieval.backends._transport import TransportFailure

Script = Callable[[bytes], list[bytes]]
"""Given the raw request, the pieces of the response to send (with a short pause between them)."""


class ScriptedServer:
    """Answers each request with pieces from ``script``; records requests and connections."""

    def __init__(self, script: Script, *, close_after: bool = False) -> None:
        self.script, self.close_after = script, close_after
        self.requests: list[bytes] = []
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                request = head + await reader.readexactly(length)
                self.requests.append(request)
                for piece in self.script(request):
                    writer.write(piece)
                    await writer.drain()
                    await asyncio.sleep(0.005)
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()


def ok(body: bytes, *extra: bytes) -> list[bytes]:
    head = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n%s\r\n" % (len(body), b"".join(extra))
    return [head[:7], head[7:] + body[:3], body[3:]]


def poster(url: str, *, timeout_s: float = 5.0, limit: int = 4) -> RawHttpPoster:
    return RawHttpPoster(url, headers={"content-type": "application/json"}, timeout_s=timeout_s, limit=limit)


@pytest.fixture
async def echo_server() -> AsyncIterator[tuple[ScriptedServer, str]]:
    server = ScriptedServer(lambda req: ok(b'{"n": %d}' % len(req)))
    async with server as url:
        yield server, url


async def test_split_pieces_keep_alive_reuse_and_request_shape(
    echo_server: tuple[ScriptedServer, str],
) -> None:
    server, url = echo_server
    client = poster(url)
    for _ in range(3):
        reply = await client.post("/chat/completions", b'{"a": 1}')
        assert reply.status == 200 and reply.content.startswith(b'{"n": ')
    assert server.connections == 1, "one keep-alive connection serves sequential requests"
    first = server.requests[0]
    assert first.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert b"content-type: application/json\r\n" in first and b"content-length: 8\r\n" in first
    assert first.endswith(b'\r\n\r\n{"a": 1}')
    await client.aclose()


async def test_concurrency_is_capped_by_limit(echo_server: tuple[ScriptedServer, str]) -> None:
    server, url = echo_server
    client = poster(url, limit=3)
    replies = await asyncio.gather(*(client.post("/x", b"{}") for _ in range(12)))
    assert all(r.status == 200 for r in replies)
    assert server.connections <= 3
    await client.aclose()


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        (
            [
                b'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{"a"\r\n',
                b"3;x=1\r\n: 1\r\n1\r\n}\r\n0\r\n\r\n",
            ],
            b'{"a": 1}',
        ),
        ([b"HTTP/1.1 100 Continue\r\n\r\n", *ok(b"{}")], b"{}"),
        (ok(gzip.compress(b'{"z": 0}'), b"content-encoding: gzip\r\n"), b'{"z": 0}'),
        ([b"HTTP/1.1 204 No Content\r\n\r\n"], b""),
    ],
)
async def test_response_framings(pieces: list[bytes], expected: bytes) -> None:
    async with ScriptedServer(lambda req: pieces) as url:
        client = poster(url)
        reply = await client.post("/x", b"{}")
        assert reply.content == expected
        assert (await client.post("/x", b"{}")).content == expected, "connection still usable"
        await client.aclose()


async def test_close_delimited_body_and_connection_close_are_not_reused() -> None:
    server = ScriptedServer(
        lambda req: [b"HTTP/1.0 503 Busy\r\nretry-after: 3\r\n\r\n", b"try later"], close_after=True
    )
    async with server as url:
        client = poster(url)
        for _ in range(2):
            reply = await client.post("/x", b"{}")
            assert (reply.status, reply.retry_after, reply.content) == (503, "3", b"try later")
        assert server.connections == 2
        await client.aclose()


async def test_server_closing_an_idle_connection_is_replaced() -> None:
    server = ScriptedServer(lambda req: ok(b"{}"), close_after=True)
    async with server as url:
        client = poster(url)
        assert (await client.post("/x", b"{}")).status == 200
        await asyncio.sleep(0.05)  # the server's FIN arrives while the connection is idle
        assert (await client.post("/x", b"{}")).status == 200
        assert server.connections == 2
        await client.aclose()


@pytest.mark.parametrize(
    ("pieces", "kind"),
    [
        ([b'HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{"partial'], "connection"),
        ([b"SSH-2.0-OpenSSH\r\n\r\n"], "connection"),
        ([], "timeout"),
    ],
)
async def test_failures_become_transport_failures(pieces: list[bytes], kind: str) -> None:
    server = ScriptedServer(lambda req: pieces, close_after=kind == "connection")
    async with server as url:
        client = poster(url, timeout_s=0.3)
        with pytest.raises(TransportFailure) as err:
            await client.post("/x", b"{}")
        assert err.value.kind == kind
        await client.aclose()


async def test_connection_refused() -> None:
    client = poster("http://127.0.0.1:9/v1")
    with pytest.raises(TransportFailure) as err:
        await client.post("/x", b"{}")
    assert err.value.kind == "refused", (
        "a closed port is told apart from a reset (the circuit breaker needs it)"
    )


async def test_client_choice() -> None:
    kwargs = {"headers": {}, "timeout_s": 1.0, "limit": 2}
    cases = [
        ("http://h:1/v1", None, AiohttpPoster),  # the default is the well-kept library
        ("http://h:1/v1", "raw", RawHttpPoster),
        ("https://h/v1", "raw", AiohttpPoster),  # raw speaks plain http only
        ("https://h/v1", None, AiohttpPoster),
        ("http://h:1/v1", "aiohttp", AiohttpPoster),
        ("http://h:1/v1", "httpx", HttpxPoster),
    ]
    for url, client, cls in cases:
        chosen = make_poster(url, client=client, **kwargs)  # type: ignore[arg-type]
        assert isinstance(chosen, cls), (url, client)
        await chosen.aclose()
    with pytest.raises(ValueError, match="http://"):
        RawHttpPoster("https://h/v1", headers={}, timeout_s=1.0, limit=1)
