"""The pieces under --stream and leakage: reading server-sent events, percentiles, template tokens."""

from __future__ import annotations

import pytest

from omnieval.aggregate.results import _percentiles
from omnieval.backends._openai_server import served_match
from omnieval.backends._openai_stream import StreamReader
from omnieval.errors import BackendError
from omnieval.textkit.chat_tokens import template_token


def _feed(reader: StreamReader, *lines: bytes) -> None:
    for line in lines:
        reader.line(line)


def test_chat_pieces_usage_and_done_make_one_timed_answer() -> None:
    reader = StreamReader(chat=True, started=0.0)
    _feed(
        reader,
        b": keep-alive",
        b'data: {"choices": [{"delta": {"role": "assistant"}}]}',
        b'data: {"choices": [{"delta": {"content": "4"}}]}',
        b"",
        b'data: {"choices": [{"delta": {"content": "2"}, "finish_reason": "length"}]}',
        b'data: {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}',
        b"data: [DONE]",
    )
    response = reader.response(where="w", latency=1.0, media={})
    assert (response.text, response.finish_reason, response.usage.completion_tokens) == ("42", "length", 2)
    assert response.stream is not None and response.stream.output_tokens == 2
    assert response.stream.ttft_s is not None and response.stream.ttft_s > 0


def test_an_error_event_and_a_cut_stream_are_named() -> None:
    reader = StreamReader(chat=False, started=0.0)
    _feed(
        reader,
        b'data: {"choices": [{"text": "a"}]}',
        b'data: {"error": {"message": "audio is not supported"}}',
    )
    with pytest.raises(BackendError, match="error in the stream: audio is not supported") as err:
        reader.response(where="w", latency=1.0, media={})
    assert not err.value.retryable
    cut = StreamReader(chat=False, started=0.0)
    _feed(cut, b'data: {"choices": [{"text": "a"}]}', b"data: {not json")
    with pytest.raises(
        BackendError, match=r"cut midway \(after 1 piece\(s\) of answer and 1 unreadable"
    ) as err:
        cut.response(where="w", latency=1.0, media={})
    assert err.value.retryable


def test_percentiles_worked_by_hand() -> None:
    # 1..5: median 3; 95th at rank 0.95 * 4 = 3.8 → 4 + 0.8 * (5 - 4) = 4.8
    assert _percentiles([5.0, 1.0, 3.0, 2.0, 4.0]) == (3.0, pytest.approx(4.8))
    assert _percentiles([]) == (None, None)


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("7<|im_end|>", "<|im_end|>"),
        ("<start_of_turn>user", "<start_of_turn>"),
        ("ok</s>", "</s>"),
        ("Ответ: 7", None),
        ("a < b and [c]", None),
        (None, None),
    ],
)
def test_template_tokens(text: str | None, token: str | None) -> None:
    assert template_token(text) == token


def test_a_served_path_matches_its_file_name_and_ollama_its_untagged_name() -> None:
    served = ("/root/.cache/gemma-3-270m-q4_k_m.gguf", "llama3:latest")
    for name in ("/root/.cache/gemma-3-270m-q4_k_m.gguf", "gemma-3-270m-q4_k_m.gguf", "gemma-3-270m-q4_k_m"):
        assert served_match(name, served)
    assert served_match("llama3", served) and not served_match("gemma", served)
