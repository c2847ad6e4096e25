"""Loglikelihood over /completions with echoed prompt log-probs (the vLLM way)."""

from __future__ import annotations

from typing import Any

import pytest

from omnieval.errors import BackendError
from omnieval.types import Message, Request
from tests.backends.test_openai_messages import Capture, make_backend

CONTEXT = "Столица Франции —"
REQ = Request(
    task="t",
    sample_id="ll1",
    messages=(Message(role="user", content="unused"),),
    prompt=CONTEXT,
    kind="loglikelihood",
    continuations=(" Лион", " Париж"),
    choices=("Лион", "Париж"),
)


def echoed(continuation: str, cont_logprobs: list[float], index: int) -> dict[str, Any]:
    """An echo body: the context as two tokens, the continuation as given, one generated token."""
    half = len(CONTEXT) // 2
    pieces = [CONTEXT[:half], CONTEXT[half:]]
    offsets = [0, half]
    step = max(1, len(continuation) // len(cont_logprobs))
    for i in range(len(cont_logprobs)):
        pieces.append(continuation[i * step : (i + 1) * step])
        offsets.append(len(CONTEXT) + i * step)
    pieces.append("!")
    offsets.append(len(CONTEXT) + len(continuation))
    logprobs = {
        "tokens": pieces,
        "token_logprobs": [None, -3.0, *cont_logprobs, -0.5],
        "text_offset": offsets,
    }
    return {"index": index, "text": CONTEXT + continuation + "!", "logprobs": logprobs}


async def test_scores_continuations_and_answers_the_best_letter() -> None:
    body = {
        "choices": [echoed(" Париж", [-0.25, -0.5], 1), echoed(" Лион", [-2.0], 0)],
        "usage": {"prompt_tokens": 9},
    }
    cap = Capture(body)
    response = await make_backend(cap).generate(REQ)
    sent = cap.bodies[0]
    assert cap.urls == ["http://test.local/v1/completions"]
    assert sent["prompt"] == [CONTEXT + " Лион", CONTEXT + " Париж"]
    assert (sent["echo"], sent["logprobs"], sent["max_tokens"], sent["temperature"]) == (True, 1, 1, 0.0)
    assert response.logprobs == (-2.0, -0.75), "context and generated tokens are left out; choices by index"
    assert response.text == "B"


async def test_server_without_prompt_logprobs_is_a_clear_non_retryable_error() -> None:
    body = {"choices": [{"index": 0, "text": "x"}, {"index": 1, "text": "y"}]}
    with pytest.raises(BackendError, match="echoes prompt log-probs") as err:
        await make_backend(Capture(body)).generate(REQ)
    assert not err.value.retryable and "choices[0].logprobs.token_logprobs" in str(err.value)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"choices": [echoed(" Лион", [-1.0], 0)]}, "has 1 entries for 2 prompts"),
        ({"id": "x"}, "'choices' is missing"),
    ],
)
async def test_malformed_echo_bodies_name_the_field(body: dict[str, Any], words: str) -> None:
    with pytest.raises(BackendError, match=words) as err:
        await make_backend(Capture(body)).generate(REQ)
    assert err.value.retryable


async def test_misaligned_offsets() -> None:
    broken = echoed(" Лион", [-1.0], 0)
    broken["logprobs"]["text_offset"] = [0]
    body = {"choices": [broken, echoed(" Париж", [-1.0], 1)]}
    with pytest.raises(BackendError, match="text_offset"):
        await make_backend(Capture(body)).generate(REQ)
