"""The fault-injecting fake OpenAI server, driven through the real openai backend (aiohttp path)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter

import httpx
import pytest

from omnieval.backends import BackendOptions
from omnieval.backends.openai_compat import OpenAIBackend
from omnieval.errors import BackendError
from omnieval.testing.fake_openai import FakeBehaviour, FakeOpenAI, parse_faults, prompt_key
from omnieval.types import GenerationConfig, Message, Request


def req(text: str, **kwargs: object) -> Request:
    return Request(task="t", sample_id=text, messages=(Message(role="user", content=text),), **kwargs)  # type: ignore[arg-type]


def test_behaviour_is_one_model_given_whole_or_as_keywords() -> None:
    whole = FakeOpenAI(behaviour=FakeBehaviour(server="llama.cpp", vision=False, leak="<|im_end|>"))
    keywords = FakeOpenAI(server="llama.cpp", vision=False, leak="<|im_end|>")
    assert whole.behaviour == keywords.behaviour and keywords.behaviour.audio
    with pytest.raises(ValueError, match="servr"):
        FakeOpenAI(servr="vllm")
    with pytest.raises(ValueError, match=r"llama\.cpp"):
        FakeOpenAI(server="tgi")
    with pytest.raises(TypeError, match="not both"):
        FakeOpenAI(behaviour=FakeBehaviour(), vision=False)


def test_parse_faults() -> None:
    assert parse_faults("429:0.05, 500:0.1,timeout:0") == {"429": 0.05, "500": 0.1, "timeout": 0.0}
    assert parse_faults("") == {}
    for bad, words in [
        ("418:0.1", "KIND:RATE"),
        ("500", "KIND:RATE"),
        ("500:x", "not a number"),
        ("500:1.5", "within"),
        ("500:0.6,429:0.6", "sum"),
    ]:
        with pytest.raises(ValueError, match=words):
            parse_faults(bad)


async def run_all(server: FakeOpenAI, texts: list[str], **options: object) -> dict[str, str]:
    """One attempt per text; returns text -> answer or error class name."""
    backend = OpenAIBackend("fake", options=BackendOptions(base_url=server.url, **options))  # type: ignore[arg-type]
    out: dict[str, str] = {}
    for text in texts:
        try:
            out[text] = (await backend.generate(req(text))).text
        except BackendError as exc:
            out[text] = "rate" if exc.rate_limited else ("retry" if exc.retryable else "fatal")
    await backend.aclose()
    return out


async def test_faults_are_deterministic_per_prompt_and_attempt() -> None:
    texts = [f"q{i}" for i in range(400)]
    results = []
    for order in (texts, texts[::-1]):
        server = FakeOpenAI(faults="429:0.1,500:0.1,garbage:0.1", seed=3, default_answer="A")
        await server.start()
        results.append(await run_all(server, order))
        served = Counter(server.faults_served)
        await server.close()
        assert 20 < served["429"] < 65 and 20 < served["500"] < 65 and 20 < served["garbage"] < 65
    assert results[0] == results[1], "same faults whatever the arrival order"
    assert Counter(results[0].values())["rate"] == served["429"]


@pytest.mark.parametrize("client", ["raw", "aiohttp", "httpx"])
async def test_each_fault_maps_to_the_right_backend_error(client: str) -> None:
    extra = {"http_client": client}
    for kind, expect in [("429", "rate"), ("500", "retry"), ("garbage", "retry"), ("reset", "retry")]:
        server = FakeOpenAI(faults={kind: 1.0}, retry_after=2)
        await server.start()
        assert await run_all(server, ["x", "y"], extra=extra) == {"x": expect, "y": expect}, kind
        await server.close()
    server = FakeOpenAI(faults={"timeout": 1.0}, hang_s=5)
    await server.start()
    backend = OpenAIBackend("fake", options=BackendOptions(base_url=server.url, timeout_s=0.3, extra=extra))
    with pytest.raises(BackendError, match=r"no answer within 0\.3 s") as err:
        await backend.generate(req("x"))
    assert err.value.retryable
    await backend.aclose()
    await server.close()


async def test_retry_after_header_reaches_error() -> None:
    server = FakeOpenAI(faults={"429": 1.0}, retry_after=1.5)
    await server.start()
    backend = OpenAIBackend("fake", options=BackendOptions(base_url=server.url))
    with pytest.raises(BackendError) as err:
        await backend.generate(req("x"))
    assert err.value.retry_after == 1.5 and err.value.rate_limited
    await backend.aclose()
    await server.close()


async def test_scripted_answers_counts_truncation_and_reasoning() -> None:
    server = FakeOpenAI(answers={"столица": "Москва"}, answer_pattern=r"\[ans=(\w+)\]", reasoning="думаю")
    await server.start()
    backend = OpenAIBackend("fake", options=BackendOptions(base_url=server.url))
    resp = await backend.generate(req("Назови столицу России"))
    assert (resp.text, resp.reasoning) == ("Назови столицу России", "думаю"), "no substring hit: echo"
    assert (await backend.generate(req("какая столица?"))).text == "Москва"
    assert (await backend.generate(req("id 7 [ans=42]"))).text == "42"
    short = await backend.generate(req("one two three four", generation=GenerationConfig(max_tokens=2)))
    assert (short.text, short.finish_reason) == ("one two", "length")
    completion = await backend.generate(req("ignored", prompt="prompt [ans=7]"))
    assert completion.text == "7"
    await backend.generate(req("какая столица?"))
    assert server.successes["какая столица?"] == 2 and server.counts["id 7 [ans=42]"] == 1
    assert server.stats()["requests"] == 6
    await backend.aclose()
    await server.close()


async def test_bad_requests_get_400() -> None:
    server = FakeOpenAI()
    await server.start()
    async with httpx.AsyncClient() as client:
        resp = await client.post(f"{server.url}/chat/completions", content=b"nope")
        assert resp.status_code == 400
        resp = await client.post(f"{server.url}/completions", json={"messages": []})
        assert resp.status_code == 400 and "prompt" in resp.text
    await server.close()


def test_in_thread_and_command_line() -> None:
    with FakeOpenAI(default_answer="B").in_thread() as server:
        body = {"model": "fake", "messages": [{"role": "user", "content": "hi"}]}
        resp = httpx.post(f"{server.url}/chat/completions", json=body)
        assert resp.json()["choices"][0]["message"]["content"] == "B"
    cmd = [sys.executable, "-m", "omnieval.testing.fake_openai", "--default-answer", "C", "--faults", "500:0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        resp = httpx.post(f"{url}/completions", json={"model": "fake", "prompt": "p"})
        assert resp.json()["choices"][0]["text"] == "C"
        assert httpx.get(url.removesuffix("/v1") + "/stats").json()["successes"] == {"p": 1}
        ((at, in_flight),) = httpx.get(url.removesuffix("/v1") + "/arrivals").json()
        assert in_flight == 1 and at <= time.monotonic()  # the one request, on this machine's clock
    finally:
        proc.terminate()
        proc.wait(10)


def test_prompt_key_tells_media_apart() -> None:
    def body(url: str) -> dict[str, object]:
        parts = [
            {"type": "text", "text": "Сколько кругов?"},
            {"type": "image_url", "image_url": {"url": url}},
        ]
        return {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": parts}]}

    a, b = prompt_key(body("data:image/png;base64,AAAA")), prompt_key(body("data:image/png;base64,BBBB"))
    assert a != b and a.startswith("Сколько кругов?<image_url:")
    assert prompt_key({"prompt": "p"}) == "p" and prompt_key({"messages": []}) == ""


def test_backend_survives_a_second_event_loop() -> None:
    """The runner may drive one backend from two ``asyncio.run`` calls; the pool follows the loop."""
    import asyncio

    with FakeOpenAI(default_answer="ok").in_thread() as server:
        backend = OpenAIBackend("fake", options=BackendOptions(base_url=server.url))
        for _ in range(2):
            assert asyncio.run(backend.generate(req("x"))).text == "ok"
