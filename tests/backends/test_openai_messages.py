"""What the openai backend sends: message JSON, media parts, completion format, generation params."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from omnieval.backends import BackendOptions, create_backend
from omnieval.backends.openai_compat import OpenAIBackend
from omnieval.errors import BackendError, ConfigError, MediaError
from omnieval.types import (
    AudioPart,
    GenerationConfig,
    ImagePart,
    MediaPolicy,
    MediaRef,
    Message,
    Request,
    TextPart,
    VideoPart,
)

OK_BODY = {"choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}


class _Prepared:
    def __init__(self, tag: str, applied: dict[str, Any]) -> None:
        self.tag, self.applied = tag, applied

    def data_url(self) -> str:
        return f"data:{self.tag}"

    def base64(self) -> str:
        return f"b64:{self.tag}"


class _Video(_Prepared):
    def __init__(self, tag: str, n_frames: int) -> None:
        super().__init__(tag, {"frames": n_frames})
        self.frames = [_Prepared(f"{tag}#{i}", {}) for i in range(n_frames)]


class FakeProcessor:
    """Stands in for omnieval.media's processor: records the policy it was built with."""

    def __init__(self, policy: MediaPolicy, cache_dir: str | None) -> None:
        self.policy, self.cache_dir = policy, cache_dir

    def image(self, ref: MediaRef) -> _Prepared:
        if ref.path == "/broken.png":
            raise MediaError("cannot decode", path=ref.path)
        return _Prepared(f"img:{ref.name}", {"size": [8, 6]})

    def audio(self, ref: MediaRef) -> _Prepared:
        return _Prepared(f"wav:{ref.name}", {"sample_rate": self.policy.audio_sample_rate})

    def video(self, ref: MediaRef) -> _Video:
        return _Video(f"vid:{ref.name}", 3)


class Capture:
    """A MockTransport handler that keeps every request body and answers with a fixed body."""

    def __init__(self, body: dict[str, Any] | None = None) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.urls: list[str] = []
        self.headers: list[httpx.Headers] = []
        self.body = body or OK_BODY

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        self.urls.append(str(request.url))
        self.headers.append(request.headers)
        return httpx.Response(200, json=self.body)


def make_backend(capture: Capture, **options: Any) -> OpenAIBackend:
    opts = BackendOptions(base_url="http://test.local/v1", **options)
    return OpenAIBackend(
        "m1", options=opts, transport=httpx.MockTransport(capture), media_factory=FakeProcessor
    )


def req(*messages: Message, **kwargs: Any) -> Request:
    return Request(task="t", sample_id="s1", messages=messages, **kwargs)


def ref(kind: str, name: str, path: str | None = None) -> MediaRef:
    return MediaRef(kind=kind, name=name, path=path or f"/data/{name}")  # type: ignore[arg-type]


async def test_text_messages_and_generation_params() -> None:
    cap = Capture()
    backend = make_backend(cap, api_key="sk-test")
    gen = GenerationConfig(temperature=0.3, max_tokens=17, top_p=0.9, stop=("\n\n",), seed=7)
    msgs = (
        Message(role="system", content="Отвечай кратко."),
        Message(role="user", content="Сколько будет 2+2?"),
    )
    resp = await backend.generate(req(*msgs, generation=gen))
    assert resp.text == "ok"
    assert cap.urls == ["http://test.local/v1/chat/completions"]
    assert cap.bodies[0] == {
        "model": "m1",
        "messages": [
            {"role": "system", "content": "Отвечай кратко."},
            {"role": "user", "content": "Сколько будет 2+2?"},
        ],
        "temperature": 0.3,
        "max_tokens": 17,
        "top_p": 0.9,
        "stop": ["\n\n"],
        "seed": 7,
    }
    assert cap.headers[0]["authorization"] == "Bearer sk-test"
    await backend.aclose()


async def test_optional_params_left_out_and_text_parts_collapse() -> None:
    cap = Capture()
    backend = make_backend(cap)
    gen = GenerationConfig(seed=None)
    await backend.generate(
        req(Message(role="user", content=(TextPart(text="a"), TextPart(text="b"))), generation=gen)
    )
    body = cap.bodies[0]
    assert body["messages"] == [{"role": "user", "content": "ab"}]
    assert "top_p" not in body and "stop" not in body and "seed" not in body
    assert "authorization" not in cap.headers[0]


async def test_image_audio_video_frames_parts_and_applied_media() -> None:
    cap = Capture()
    backend = make_backend(cap, media_cache_dir="/cache")
    content = (
        TextPart(text="Look: "),
        ImagePart(media=ref("image", "image")),
        AudioPart(media=ref("audio", "audio_1")),
        VideoPart(media=ref("video", "clip")),
    )
    resp = await backend.generate(req(Message(role="user", content=content)))
    parts = cap.bodies[0]["messages"][0]["content"]
    assert parts == [
        {"type": "text", "text": "Look: "},
        {"type": "image_url", "image_url": {"url": "data:img:image"}},
        {"type": "input_audio", "input_audio": {"data": "b64:wav:audio_1", "format": "wav"}},
        {"type": "image_url", "image_url": {"url": "data:vid:clip#0"}},
        {"type": "image_url", "image_url": {"url": "data:vid:clip#1"}},
        {"type": "image_url", "image_url": {"url": "data:vid:clip#2"}},
    ]
    assert resp.media == {"image": {"size": [8, 6]}, "audio_1": {"sample_rate": 16000}, "clip": {"frames": 3}}


async def test_video_file_mode_and_policy_reaches_processor() -> None:
    cap = Capture()
    seen: list[tuple[MediaPolicy, str | None]] = []

    def factory(policy: MediaPolicy, cache_dir: str | None) -> FakeProcessor:
        seen.append((policy, cache_dir))
        return FakeProcessor(policy, cache_dir)

    opts = BackendOptions(base_url="http://test.local/v1", media_cache_dir="/c")
    backend = OpenAIBackend("m1", options=opts, transport=httpx.MockTransport(cap), media_factory=factory)
    policy = MediaPolicy(video_mode="file", audio_sample_rate=24000)
    message = Message(role="user", content=(VideoPart(media=ref("video", "v")),))
    await backend.generate(req(message, media_policy=policy))
    await backend.generate(req(message, media_policy=policy))
    assert cap.bodies[0]["messages"][0]["content"] == [
        {"type": "video_url", "video_url": {"url": "data:vid:v"}}
    ]
    assert seen == [(policy, "/c")], "one processor per policy, built once"


async def test_media_error_becomes_non_retryable_backend_error() -> None:
    backend = make_backend(Capture())
    message = Message(role="user", content=(ImagePart(media=ref("image", "image", "/broken.png")),))
    with pytest.raises(BackendError) as err:
        await backend.generate(req(message))
    assert not err.value.retryable
    assert "/broken.png" in str(err.value) and "sample 's1'" in str(err.value)


async def test_completion_format_uses_completions_endpoint() -> None:
    cap = Capture(
        {"choices": [{"text": " Москва", "finish_reason": "length"}], "usage": {"prompt_tokens": 5}}
    )
    backend = make_backend(cap)
    resp = await backend.generate(req(Message(role="user", content="x"), prompt="Столица России:"))
    assert cap.urls == ["http://test.local/v1/completions"]
    assert cap.bodies[0]["prompt"] == "Столица России:" and "messages" not in cap.bodies[0]
    assert (resp.text, resp.finish_reason, resp.usage.prompt_tokens) == (" Москва", "length", 5)


async def test_extra_body_is_merged() -> None:
    cap = Capture()
    backend = make_backend(cap, extra={"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}})
    await backend.generate(req(Message(role="user", content="hi")))
    assert cap.bodies[0]["chat_template_kwargs"] == {"enable_thinking": False}


def test_registered_and_base_url_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    backend = create_backend("openai/fake", options=BackendOptions(base_url="http://127.0.0.1:9"))
    assert isinstance(backend, OpenAIBackend)
    assert backend.base_url == "http://127.0.0.1:9/v1", "a bare host gets /v1"
    assert "api_key" not in json.dumps(backend.describe())
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        create_backend("openai/gpt-4o")
    with pytest.raises(ConfigError, match="base-url"):
        create_backend("openai/x", options=BackendOptions(base_url="localhost:8000"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert create_backend("openai/gpt-4o").api_key == "sk-env"  # type: ignore[attr-defined]


async def test_loglikelihood_needs_completion_prompt_and_continuations() -> None:
    backend = make_backend(Capture())
    with pytest.raises(BackendError, match="completion prompt format") as err:
        await backend.generate(
            req(Message(role="user", content="x"), kind="loglikelihood", continuations=("a",))
        )
    assert not err.value.retryable
    with pytest.raises(BackendError, match="1-26 continuations"):
        await backend.generate(req(Message(role="user", content="x"), prompt="p", kind="loglikelihood"))


async def test_max_tokens_field_and_httpx_client_option() -> None:
    cap = Capture()
    backend = make_backend(cap, extra={"max_tokens_field": "max_completion_tokens", "http_client": "httpx"})
    await backend.generate(req(Message(role="user", content="hi")))
    assert cap.bodies[0]["max_completion_tokens"] == 256 and "max_tokens" not in cap.bodies[0]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"extra_bdy": {}}, "unknown key(s) 'extra_bdy'; known keys: extra_body"),
        ({"extra_body": "x"}, "extra_body='x': Input should be a valid dictionary"),
        (
            {"http_client": "requests"},
            "http_client='requests': Input should be 'auto', 'raw', 'aiohttp' or 'httpx'",
        ),
        ({"max_tokens_field": "n"}, "max_tokens_field='n': Input should be"),
    ],
)
def test_bad_backend_options_fail_before_any_request(extra: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as err:
        make_backend(Capture(), extra=extra)
    assert words in str(err.value)


async def test_completion_format_refuses_media_instead_of_dropping_it() -> None:
    cap = Capture()
    message = Message(role="user", content=(TextPart(text="see"), ImagePart(media=ref("image", "image"))))
    with pytest.raises(BackendError, match="cannot carry media") as err:
        await make_backend(cap).generate(req(message, prompt="see <image>"))
    assert not err.value.retryable and cap.bodies == []
