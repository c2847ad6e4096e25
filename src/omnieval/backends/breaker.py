"""A circuit breaker for one HTTP endpoint: stop at once when it is dead or misconfigured.

A wrong port, host, key or model name fails every request the same way, and retrying each sample
with backoff would burn minutes to hours before the run ends in nothing but errors. The breaker
watches each attempt's outcome: when ``threshold`` attempts in a row (the first ones of a run, or a
run of them later) fail with the same *non-transient* cause, it trips and raises
:class:`EndpointDown`, naming the URL, the HTTP status and the server's own message. Transient
faults (HTTP 429 and 5xx, timeouts, resets, garbled bodies) neither count nor reset the streak:
the runner's retries handle those. A success resets it.

It knows nothing about models or samples, so the runner (model under test) and the judges (a judge
endpoint) each keep their own breaker, labelled with their endpoint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from omnieval.errors import BackendError, OmnievalError
from omnieval.types import Response

__all__ = [
    "DEFAULT_THRESHOLD",
    "JUDGE_OPTIONS",
    "MODEL_OPTIONS",
    "Cause",
    "CircuitBreaker",
    "EndpointDown",
    "classify",
    "unsupported_feature",
]

DEFAULT_THRESHOLD = 4
"""Four identical non-transient failures in a row: at one request at a time with the default backoff
(0.5, 1, 2 s, ±50 %) that is under 6 s; at higher concurrency it is the first wave of requests."""

_STATUS = {
    401: "HTTP 401 (unauthorized: check {prefix}api-key or the provider's key variable)",
    403: "HTTP 403 (forbidden)",
    404: "HTTP 404 (not found: check {prefix}base-url and the model name)",
}
"""Hints name the endpoint's own options: ``--base-url`` for the model under test, ``--judge-base-url``
for a judge (``options_prefix``)."""
MODEL_OPTIONS = "--"
JUDGE_OPTIONS = "--judge-"
_TRANSPORT = {
    "refused": "connection refused (nothing listens there: check the host and port)",
    "dns": "DNS lookup failed (check the host name)",
    "tls": "TLS error (check https vs http and the certificate)",
    "url": "unusable URL",
}
_UNKNOWN_MODEL = re.compile(
    r"model\b.{0,120}\b(not found|does not exist|doesn't exist|not exist|unknown|not available|no such)"
    r"|(unknown|invalid|no such) model",
    re.IGNORECASE | re.DOTALL,
)
_UNSUPPORTED = re.compile(
    r"\b(not supported|unsupported|does not support|doesn't support|not implemented|not enabled"
    r"|cannot (accept|handle|process)|no (vision|audio|multimodal) support)\b",
    re.IGNORECASE,
)
_STATUS_IN_TEXT = re.compile(r"\bHTTP (\d{3})\b")


def unsupported_feature(message: str) -> bool:
    """The server says it cannot do what was asked (``image input is not supported``): the same answer
    however often it is asked, even under HTTP 500, so never retried."""
    return bool(_UNSUPPORTED.search(message))


@dataclass(frozen=True)
class Cause:
    """A non-transient failure: what, where, and what the server said."""

    kind: str
    url: str | None = None
    status: int | None = None
    message: str = ""

    @property
    def key(self) -> tuple[str, int | None, str]:
        """Failures count as the same cause when kind, status and server text agree."""
        return self.kind, self.status, self.message if self.status is not None else ""

    def describe(self) -> str:
        parts = [self.kind]
        if self.url:
            parts.append(f"at {self.url}")
        if self.message:
            parts.append(
                f"server said: {self.message}" if self.status is not None else f"error: {self.message}"
            )
        return "; ".join(parts)


def _from_status(status: int, message: str, url: str | None, prefix: str) -> Cause | None:
    if status in _STATUS:
        return Cause(_STATUS[status].format(prefix=prefix), url=url, status=status, message=message)
    if status in (400, 422) and _UNKNOWN_MODEL.search(message):
        return Cause(
            f"HTTP {status} (the server does not know this model)", url=url, status=status, message=message
        )
    if status in (400, 422, 500, 501) and unsupported_feature(message):
        return Cause(
            f"HTTP {status} (the server cannot do what was asked)", url=url, status=status, message=message
        )
    return None


def classify(failure: BaseException | Response, *, options_prefix: str = MODEL_OPTIONS) -> Cause | None:
    """The non-transient cause of a failed attempt, or None when it is transient or sample-specific.
    ``options_prefix``: how the endpoint's options are spelt in hints (``--judge-`` for a judge)."""
    if isinstance(failure, Response):
        return _from_text(failure.error or "", options_prefix)
    if isinstance(failure, BackendError):
        if failure.status is not None:
            return _from_status(failure.status, failure.server_message or "", failure.url, options_prefix)
        if failure.transport in _TRANSPORT:
            return Cause(_TRANSPORT[failure.transport], url=failure.url, message=str(failure))
        return None
    if isinstance(failure, ConnectionRefusedError):
        return Cause(_TRANSPORT["refused"], message=str(failure))
    return None


def _from_text(error: str, prefix: str) -> Cause | None:
    """Best effort for a Response that kept only its error text."""
    if match := _STATUS_IN_TEXT.search(error):
        return _from_status(int(match.group(1)), error[match.end() :].lstrip(": "), None, prefix)
    if "connection refused" in error.lower() or "connect call failed" in error.lower():
        return Cause(_TRANSPORT["refused"], message=error)
    return None


class EndpointDown(OmnievalError):
    """The breaker tripped: the endpoint fails every request the same way."""

    def __init__(self, endpoint: str, cause: Cause, count: int) -> None:
        super().__init__(
            f"stopped: {count} requests in a row to {endpoint} failed with {cause.describe()}. "
            "Samples not yet answered stay unfinished: fix the server or the options and run the same "
            "command again to resume."
        )
        self.endpoint = endpoint
        self.cause = cause
        self.count = count

    def __reduce__(self) -> tuple[type[EndpointDown], tuple[str, Cause, int]]:
        """Picklable, so a Ray worker's trip reaches the driver as itself (not an undecodable error)."""
        return type(self), (self.endpoint, self.cause, self.count)


class CircuitBreaker:
    """Counts identical non-transient failures in a row for one endpoint; trips at ``threshold``.

    ``threshold=0`` disables it (every failure is then left to the retry policy). ``options_prefix``:
    the endpoint's options in its messages (``--base-url``, or ``--judge-base-url`` for a judge's).
    """

    def __init__(
        self, endpoint: str, *, threshold: int = DEFAULT_THRESHOLD, options_prefix: str = MODEL_OPTIONS
    ) -> None:
        self.endpoint = endpoint
        self.threshold = threshold
        self.options_prefix = options_prefix
        self.tripped: EndpointDown | None = None
        self._cause: Cause | None = None
        self._streak = 0

    def check(self) -> None:
        """Raise :class:`EndpointDown` when already tripped (call before each attempt)."""
        if self.tripped is not None:
            raise self.tripped

    def succeeded(self) -> None:
        self._streak = 0
        self._cause = None

    def failed(self, failure: BaseException | Response) -> None:
        """Record a failed attempt; raises :class:`EndpointDown` when this one trips the breaker."""
        if self.threshold <= 0:
            return
        self.check()
        cause = classify(failure, options_prefix=self.options_prefix)
        if cause is None:
            return
        if self._cause is not None and self._cause.key == cause.key:
            self._streak += 1
        else:
            self._cause, self._streak = cause, 1
        if self._streak >= self.threshold:
            self.tripped = EndpointDown(self.endpoint, cause, self._streak)
            raise self.tripped
