"""Every HTTP client reports a closed port as ``refused`` (the breaker's cue), not as a generic failure."""

from __future__ import annotations

import socket
import ssl

import pytest

from omnieval.backends._openai_http import make_poster
from omnieval.backends._transport import TransportFailure, connection_kind


def _closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.mark.parametrize("client", ["aiohttp", "httpx", "raw"])
async def test_closed_port_is_refused(client: str) -> None:
    poster = make_poster(_closed_url(), headers={}, timeout_s=5, limit=2, client=client)
    try:
        with pytest.raises(TransportFailure) as err:
            await poster.post("/chat/completions", b"{}")
    finally:
        await poster.aclose()
    assert err.value.kind == "refused"


def _wrapped(inner: BaseException) -> Exception:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise RuntimeError("client error") from exc
    except RuntimeError as outer:
        return outer


@pytest.mark.parametrize(
    ("inner", "kind"),
    [
        (socket.gaierror(-2, "Name or service not known"), "dns"),
        (ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number"), "tls"),
        (OSError("Multiple exceptions: [Errno 111] Connect call failed ('::1', 80)"), "refused"),
        (ConnectionResetError(104, "Connection reset by peer"), "connection"),
    ],
)
def test_kind_found_down_the_exception_chain(inner: BaseException, kind: str) -> None:
    assert connection_kind(_wrapped(inner)) == kind


@pytest.mark.parametrize("client", ["aiohttp", "httpx"])
async def test_https_to_a_plain_http_server_is_tls(client: str) -> None:
    from omnieval.testing.fake_openai import FakeOpenAI

    server = FakeOpenAI()
    url = await server.start()
    poster = make_poster(url.replace("http://", "https://"), headers={}, timeout_s=5, limit=2, client=client)
    try:
        with pytest.raises(TransportFailure) as err:
            await poster.post("/chat/completions", b"{}")
    finally:
        await poster.aclose()
        await server.close()
    assert err.value.kind == "tls"
