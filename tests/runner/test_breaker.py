"""The circuit breaker's rules, on failures as the backends raise them."""

from __future__ import annotations

import pytest

from omnieval.backends.breaker import DEFAULT_THRESHOLD, CircuitBreaker, EndpointDown, classify
from omnieval.errors import BackendError
from omnieval.types import Response

URL = "http://127.0.0.1:9/v1/chat/completions"


def _http(status: int, message: str) -> BackendError:
    return BackendError(
        f"HTTP {status}: {message}",
        status=status,
        url=URL,
        server_message=message,
        retryable=status >= 500 or status == 429,
    )


def _refused() -> BackendError:
    return BackendError(
        "connection failed: Connect call failed", retryable=True, transport="refused", url=URL
    )


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (_refused(), "connection refused"),
        (BackendError("x", transport="dns", url=URL), "DNS"),
        (BackendError("x", transport="tls", url=URL), "TLS"),
        (_http(401, "invalid API key"), "HTTP 401"),
        (_http(403, "forbidden"), "HTTP 403"),
        (_http(404, "model 'x' not found"), "HTTP 404"),
        (_http(400, "The model `x` does not exist."), "does not know this model"),
        (Response.from_error("judge (http://j/v1): HTTP 404: model 'j' not found"), "HTTP 404"),
    ],
)
def test_non_transient_causes(failure: BackendError | Response, kind: str) -> None:
    cause = classify(failure)
    assert cause is not None and kind in cause.kind


@pytest.mark.parametrize(
    "failure",
    [
        _http(429, "slow down"),
        _http(500, "internal error"),
        _http(503, "overloaded"),
        _http(400, "prompt is too long: 9000 tokens"),
        BackendError("no answer within 3 s", retryable=True, transport="timeout", url=URL),
        BackendError("connection failed: reset", retryable=True, transport="connection", url=URL),
        BackendError("response field 'choices' is missing", retryable=True),
        Response.from_error("HTTP 500: oops"),
    ],
)
def test_transient_or_sample_specific_failures_are_not_counted(failure: BackendError | Response) -> None:
    assert classify(failure) is None
    breaker = CircuitBreaker("http://x/v1", threshold=2)
    for _ in range(10):
        breaker.failed(failure)
    assert breaker.tripped is None


def test_trips_on_the_threshold_naming_url_status_and_server_text() -> None:
    breaker = CircuitBreaker("http://127.0.0.1:9/v1", threshold=3)
    breaker.failed(_http(404, "model 'x' not found"))
    breaker.failed(_http(404, "model 'x' not found"))
    with pytest.raises(EndpointDown) as info:
        breaker.failed(_http(404, "model 'x' not found"))
    message = str(info.value)
    assert "http://127.0.0.1:9/v1" in message and "404" in message and "model 'x' not found" in message
    with pytest.raises(EndpointDown):
        breaker.check()  # every later attempt stops too


def test_a_success_or_another_cause_resets_the_streak_and_transient_faults_do_not() -> None:
    breaker = CircuitBreaker("e", threshold=3)
    breaker.failed(_refused())
    breaker.failed(_refused())
    breaker.succeeded()
    breaker.failed(_refused())
    breaker.failed(_refused())
    breaker.failed(_http(401, "invalid API key"))  # a different cause starts a new streak
    breaker.failed(_refused())
    breaker.failed(_refused())
    breaker.failed(_http(503, "overloaded"))  # transient: neither counts nor resets
    with pytest.raises(EndpointDown, match="connection refused"):
        breaker.failed(_refused())


def test_threshold_zero_disables() -> None:
    breaker = CircuitBreaker("e", threshold=0)
    for _ in range(20):
        breaker.failed(_refused())
    breaker.check()


def test_cli_default_matches_the_breaker_default() -> None:
    import inspect

    from omnieval.cli.run_cmd import run_command
    from omnieval.runner import RunConfig

    assert inspect.signature(run_command).parameters["breaker_threshold"].default == DEFAULT_THRESHOLD
    assert RunConfig(tasks=("x",), model="a/b", output="o").breaker_threshold == DEFAULT_THRESHOLD  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("prefix", "named", "not_named"),
    [("--", "--base-url", "--judge-"), ("--judge-", "--judge-base-url", " --base-url")],
)
def test_hints_name_the_endpoints_own_options(prefix: str, named: str, not_named: str) -> None:
    breaker = CircuitBreaker("judge http://j/v1", threshold=1, options_prefix=prefix)
    with pytest.raises(EndpointDown) as info:
        breaker.failed(_http(404, "model 'j' not found"))
    assert named in str(info.value) and not_named not in str(info.value)
    cause = classify(_http(401, "invalid API key"), options_prefix=prefix)
    assert cause is not None and f"{prefix}api-key" in cause.kind
