"""How the openai backend reads answers and maps failures to the runner's retry flags."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from omnieval.backends import BackendOptions
from omnieval.backends.openai_compat import OpenAIBackend, parse_retry_after
from omnieval.errors import BackendError
from omnieval.types import Message, Request

REQ = Request(task="qa", sample_id="42", messages=(Message(role="user", content="q"),))


def backend_for(handler: Callable[[httpx.Request], httpx.Response], **options: Any) -> OpenAIBackend:
    opts = BackendOptions(base_url="http://srv.local/v1", **options)
    return OpenAIBackend("m", options=opts, transport=httpx.MockTransport(handler))


def answering(status: int, **kwargs: Any) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(status, **kwargs)


async def failure(handler: Callable[[httpx.Request], httpx.Response]) -> BackendError:
    with pytest.raises(BackendError) as err:
        await backend_for(handler).generate(REQ)
    return err.value


def choice(**fields: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, **fields}]}


@pytest.mark.parametrize(
    ("reported", "expected"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("content_filter", "content_filter"),
        ("tool_calls", "stop"),  # a turn that called tools ended as it should
        (None, "stop"),
    ],
)
async def test_finish_reasons(reported: str | None, expected: str) -> None:
    body = choice(message={"content": "x"}, finish_reason=reported)
    resp = await backend_for(answering(200, json=body)).generate(REQ)
    assert resp.finish_reason == expected


async def test_usage_reasoning_and_latency() -> None:
    body = choice(message={"content": "Ответ: 4", "reasoning_content": "2+2=4"}, finish_reason="stop")
    body["usage"] = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    resp = await backend_for(answering(200, json=body)).generate(REQ)
    assert (resp.text, resp.reasoning) == ("Ответ: 4", "2+2=4")
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (12, 3)
    assert resp.latency_s is not None and resp.latency_s >= 0


async def test_null_content_and_list_content() -> None:
    resp = await backend_for(answering(200, json=choice(message={"content": None}))).generate(REQ)
    assert resp.text == ""
    parts = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    resp = await backend_for(answering(200, json=choice(message={"content": parts}))).generate(REQ)
    assert resp.text == "ab"


async def test_429_is_rate_limited_with_retry_after() -> None:
    err = await failure(
        answering(429, json={"error": {"message": "slow down"}}, headers={"Retry-After": "7"})
    )
    assert (err.retryable, err.rate_limited, err.retry_after) == (True, True, 7.0)
    assert "slow down" in str(err) and "sample '42'" in str(err)


async def test_5xx_retryable_and_4xx_not() -> None:
    err = await failure(answering(503, text="upstream down"))
    assert err.retryable and not err.rate_limited and "HTTP 503" in str(err) and "upstream down" in str(err)
    err = await failure(answering(400, json={"error": {"message": "max_tokens too large"}}))
    assert not err.retryable and "max_tokens too large" in str(err) and "HTTP 400" in str(err)
    err = await failure(answering(404, json={"detail": "model 'm' not found"}))
    assert not err.retryable and "model 'm' not found" in str(err)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"choices": [{"mess', "not valid JSON"),
        (b'{"id": "x"}', "'choices'"),
        (b'{"choices": []}', "'choices'"),
        (b'{"choices": [{"finish_reason": "stop"}]}', "'choices[0].message'"),
        (b'{"choices": [{"message": {"content": 5}}]}', "'choices[0].message.content'"),
        (b"[1, 2]", "expected a JSON object"),
    ],
)
async def test_malformed_bodies_are_retryable_and_named(body: bytes, field: str) -> None:
    err = await failure(answering(200, content=body))
    assert err.retryable
    assert field in str(err)


async def test_an_html_page_is_a_wrong_url_not_retried() -> None:
    """A web UI or a proxy answering 200 with a page is the same on every try: named by its title."""
    page = b"<!DOCTYPE html><html><head><title>llama.cpp - chat</title></head><body>x</body></html>"
    err = await failure(answering(200, content=page))
    assert not err.retryable
    assert "HTML page: llama.cpp - chat" in str(err) and "--base-url" in str(err)


async def test_an_html_error_page_is_named_by_its_title() -> None:
    page = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1> nginx</body></html>"
    err = await failure(answering(502, content=page))
    assert err.retryable and "HTTP 502: HTML page: 502 Bad Gateway" in str(err)


async def test_completions_missing_text_field() -> None:
    backend = backend_for(answering(200, json=choice(finish_reason="stop")))
    with pytest.raises(BackendError, match=r"'choices\[0\]\.text'"):
        await backend.generate(REQ.model_copy(update={"prompt": "p"}))


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (httpx.ReadTimeout("slow"), "no answer within 3 s"),
        (httpx.ConnectError("refused"), "connection failed"),
    ],
)
async def test_transport_failures_are_retryable(exc: Exception, words: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc

    with pytest.raises(BackendError) as err:
        await backend_for(handler, timeout_s=3).generate(REQ)
    assert err.value.retryable and words in str(err.value) and "srv.local" in str(err.value)


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("2.5") == 2.5
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    value = parse_retry_after(later)
    assert value is not None and 25 <= value <= 31
    assert parse_retry_after(email.utils.formatdate(time.time() - 100, usegmt=True)) == 0.0
