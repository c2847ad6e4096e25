"""The single exception root of omnieval.

Tree::

    OmnievalError
    ├── ConfigError          bad command-line options or run configuration
    │   └── CostLimitReached the next request could pass ``--cost-limit`` (exit code 4; resumable)
    ├── TaskFileError        a task file or dataset that does not validate (names file and key)
    ├── RegistryError        an unknown plugin name (suggests close matches)
    ├── SourceError          a dataset row that cannot become a sample (names file, sample, field)
    ├── MediaError           a missing, corrupt or unsupported media file (names the file)
    ├── BackendError         a model backend failed to answer (retryable or not)
    ├── ParseError           a parser misconfiguration (parse *failures* are values, not errors)
    ├── MetricError          a metric misconfiguration or a bad reference
    ├── StoreError           a run directory that cannot be read or written
    └── SubmissionError      a submission archive with the wrong shape

Every error carries its context in the message: which file, which sample, which field.
"""

from __future__ import annotations

__all__ = [
    "BackendError",
    "ConfigError",
    "CostLimitReached",
    "MediaError",
    "MetricError",
    "NotResumable",
    "OmnievalError",
    "ParseError",
    "RegistryError",
    "SourceError",
    "StoreError",
    "SubmissionError",
    "TaskFileError",
]


class OmnievalError(Exception):
    """Root of every error omnieval raises on purpose."""


class ConfigError(OmnievalError):
    """Bad options or run configuration."""


class NotResumable(ConfigError):
    """The output folder holds a run of another model, judge or task definition: resuming would mix two."""


class CostLimitReached(ConfigError):
    """The run stopped before a request that could take its spending past ``--cost-limit``; finished
    samples are saved, and the same command with a higher limit resumes it (CLI exit code 4)."""

    exit_code = 4


class TaskFileError(OmnievalError):
    """A task file or task directory that does not validate."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None) -> None:
        where = ", ".join(p for p in (f"file {path}" if path else "", f"key {key!r}" if key else "") if p)
        super().__init__(f"{where}: {message}" if where else message)
        self.path = path
        self.key = key


class RegistryError(OmnievalError):
    """An unknown plugin name."""


class SourceError(OmnievalError):
    """A dataset row that cannot become a sample."""

    def __init__(
        self, message: str, *, path: str | None = None, sample_id: str | None = None, field: str | None = None
    ) -> None:
        parts = [
            f"file {path}" if path else "",
            f"sample {sample_id!r}" if sample_id is not None else "",
            f"field {field!r}" if field else "",
        ]
        where = ", ".join(p for p in parts if p)
        super().__init__(f"{where}: {message}" if where else message)
        self.path = path
        self.sample_id = sample_id
        self.field = field


class MediaError(OmnievalError):
    """A media file that is missing, corrupt, unsupported or over budget."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(f"media {path}: {message}" if path else message)
        self.path = path


class BackendError(OmnievalError):
    """A backend failed to produce a response.

    ``retryable`` tells the runner whether to try again; ``retry_after`` carries a server's
    Retry-After hint in seconds; ``rate_limited`` marks HTTP 429 so concurrency can back off.
    ``status`` (the HTTP status), ``transport`` (``refused``, ``dns``, ``tls``, ``url``, ``timeout``,
    ``connection``: why no HTTP answer came), ``url`` and ``server_message`` let a circuit breaker tell a
    dead or misconfigured endpoint from a transient fault without parsing the message.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        rate_limited: bool = False,
        status: int | None = None,
        transport: str | None = None,
        url: str | None = None,
        server_message: str | None = None,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.rate_limited = rate_limited
        self.status = status
        self.transport = transport
        self.url = url
        self.server_message = server_message


class ParseError(OmnievalError):
    """A parser that is misconfigured (not a failed parse: those are ParseFailure values)."""


class MetricError(OmnievalError):
    """A metric that is misconfigured or given an unusable reference."""


class StoreError(OmnievalError):
    """A run directory that cannot be read or written."""


class SubmissionError(OmnievalError):
    """A submission archive with the wrong layout or contents."""
