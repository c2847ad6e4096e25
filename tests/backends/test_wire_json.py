"""The OpenAI wire's JSON through orjson: the same JSON as the standard library's, both ways, including
what only the standard library takes."""

from __future__ import annotations

import json

import pytest

from omnieval.backends._wire_json import request_body, response_json


def test_a_request_body_carries_the_same_json_as_json_dumps() -> None:
    payload = {
        "model": "m",
        "messages": [{"role": "user", "content": 'Сколько будет 2 + 2? \\ " \n\t \u2028'}],
        "temperature": 0.1,
        "max_tokens": 16,
        "logit_bias": {50256: -100},  # an int key: json.dumps writes it as a string, so must we
        "stop": ("\n\n",),
        "seed": 2**63 - 1,
    }
    body = request_body(payload)
    assert json.loads(body) == json.loads(json.dumps(payload, ensure_ascii=False))
    assert "Сколько".encode() in body  # UTF-8, not \\u escapes
    huge = {"seed": 2**70}  # past orjson's 64 bits: written as the standard library writes it
    assert request_body(huge) == json.dumps(huge).encode()


def test_a_response_reads_as_the_standard_library_reads_it() -> None:
    plain = b'{"choices": [{"message": {"content": "\\u041e\\u0442\\u0432\\u0435\\u0442"}}], "n": 1.5e-7}'
    assert response_json(plain) == json.loads(plain)
    lenient = b'{"logprob": NaN}'  # refused by orjson
    assert response_json(lenient)["logprob"] != response_json(lenient)["logprob"]
    big = b'{"created": 123456789012345678901234567890}'  # orjson would read a float
    assert response_json(big)["created"] == 123456789012345678901234567890
    with pytest.raises(ValueError):
        response_json(b"<html>502 Bad Gateway</html>")
