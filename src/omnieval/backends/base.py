"""The backend protocol and registry.

A backend turns a :class:`Request` into a :class:`Response`. It does no retries and no caching:
the runner gives every backend those the same way. A backend raises :class:`BackendError` (with
``retryable`` / ``retry_after`` / ``rate_limited``) when it cannot answer.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from omnieval.backends.options import check_backend_extra, check_media_overrides
from omnieval.errors import ConfigError
from omnieval.registry import Registry
from omnieval.types import GenerationConfig, Request, Response
from omnieval.types._base import Frozen
from omnieval.types.request import Reasoning

__all__ = [
    "Backend",
    "BackendOptions",
    "InProcessBackend",
    "accepted_modalities",
    "backends",
    "batch_of_one",
    "check_backend_options",
    "create_backend",
    "optional_sampling",
    "register_backend",
    "split_model_spec",
]


class BackendOptions(Frozen):
    """Options common to all backends; backend-specific ones go in ``extra``."""

    base_url: str | None = None
    api_key: str | None = None
    concurrency: int = 32
    timeout_s: float = 120.0
    device: str | None = None
    dtype: str | None = None
    batch_size: int = 8
    media: dict[str, Any] = Field(default_factory=dict)
    """Per-model overrides of the tasks' media policy fields (e.g. ``{"image_max_pixels": 1e6}``)."""
    media_cache_dir: str | None = None
    """Where prepared media are cached by content hash (set by the runner per run)."""
    stream: bool = False
    """Stream answers and time them (``--stream``): time to first token, output tokens per second."""
    extra: dict[str, Any] = Field(default_factory=dict)


class Backend(ABC):
    """Base class of every model backend."""

    provider: ClassVar[str] = ""
    modalities: ClassVar[frozenset[str]] = frozenset({"text"})
    """Input modalities the backend accepts; the runner skips samples with others."""
    prefers_batches: ClassVar[bool] = False
    """When True the runner hands ready requests to ``generate_many`` in lists of ``options.batch_size``."""
    caches_responses: ClassVar[bool] = True
    """False for backends whose answers are free to recompute (replay, baselines): no cache entries."""
    classifies: ClassVar[bool] = False
    """True for text classifiers (encoder judges): they answer ``classify`` requests with the label as
    text and the class probabilities in ``Response.extra["probs"]``."""
    tool_calling: ClassVar[bool] = False
    """True when the backend passes tools to the model and returns its tool calls; a task with tools
    (``agent:``) is refused before the run on a backend without (tools are never dropped silently)."""
    extra_options: ClassVar[type[BaseModel] | None] = None
    """The ``--backend-opt`` keys this backend takes, as a frozen model (None: it takes none)."""
    batch_api: ClassVar[str | None] = None
    """The provider batch API behind ``--batch`` (e.g. ``openai``); ``None``: the backend has none."""
    streams: ClassVar[bool] = False
    """True when the backend can stream answers and time them (``--stream``)."""
    effort_budget: ClassVar[dict[str, int] | None] = None
    """Thinking tokens per ``--reasoning-effort`` of a backend whose provider takes a token budget
    (Anthropic, Gemini); None: the backend has no thinking budget."""

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        self.model = model
        self.options = options
        self.settings = check_backend_extra(self.provider, self.option_model(model), options.extra)
        """``options.extra`` validated into ``extra_options`` (None when the backend takes none)."""
        check_media_overrides(options.media)

    @classmethod
    def option_model(cls, name: str) -> type[BaseModel] | None:
        """The ``--backend-opt`` model for the model ``name`` (a cascade answers for its text model)."""
        return cls.extra_options

    @classmethod
    def accepts_for(cls, name: str, *, options: BackendOptions) -> frozenset[str]:
        """The input modalities the model ``name`` takes, known without loading it (the run checks each
        task against them before any request; ``--dry-run`` shows the same)."""
        return cls.modalities

    def accepts(self) -> frozenset[str]:
        """:meth:`accepts_for` this backend's model."""
        return self.accepts_for(self.model, options=self.options)

    async def preflight(self) -> list[str]:
        """Once per run, before the first request: ask the endpoint what it serves and takes (an HTTP
        backend asks its server), raising ConfigError when it cannot serve this model; afterwards
        :meth:`accepts` and :meth:`declined` include what it said. Returns warnings for the user.
        Default: nothing to ask."""
        return []

    def declined(self) -> dict[str, str]:
        """Input modalities the endpoint itself said it cannot take, each with its own words (known after
        :meth:`preflight`)."""
        return {}

    def fingerprint_name(self) -> str:
        """The backend's part of a request's fingerprint (its cache key): the provider, and whatever else
        changes the answer to the same request (``openai/``'s completions endpoint)."""
        return self.provider

    @property
    def spec(self) -> str:
        return f"{self.provider}/{self.model}"

    @abstractmethod
    async def generate(self, request: Request) -> Response:
        """Answer one request (or raise BackendError)."""

    async def generate_many(self, requests: Sequence[Request]) -> list[Response | BaseException]:
        """Answer several requests; batching backends override this."""
        return list(await asyncio.gather(*(self.generate(r) for r in requests), return_exceptions=True))

    def passes_tools(self) -> bool:
        """Whether this backend's model gets a task's tools (checked before the run; a local model's
        backend looks at its chat template)."""
        return self.tool_calling

    def recorded_repeats(self, task: str) -> int | None:
        """How many repeated answers per sample this backend holds for ``task`` when it plays recorded
        ones back (replay); a run without ``--repeats`` then scores each of them. ``None``: not known."""
        return None

    def max_connections(self) -> int:
        """How many requests may be in flight at once."""
        return max(1, self.options.concurrency)

    def sep_token(self) -> str:
        """The separator a classifier's tokenizer puts between segments (classifiers override)."""
        raise ConfigError(f"backend {self.spec!r} is not a text classifier: it has no separator token")

    def truncations(self, text: str, *, max_tokens: int, offset: int) -> list[str]:
        """``[text]``, or its right and left truncations when longer than ``max_tokens - offset`` tokens
        (classifiers with a tokenizer override this)."""
        return [text]

    def identity(self) -> str:
        """What besides the spec tells this model apart (a local judge's weights digest); part of judge
        versions."""
        return ""

    def reasoning_mapping(self, reasoning: Reasoning | None) -> dict[str, Any]:
        """How this backend sends the run's reasoning controls (recorded in the manifest); the default
        backend has no such field, so the controls are not sent."""
        if reasoning is None:
            return {}
        return {"sent": None, "note": f"backend {self.provider!r} has no reasoning control: not sent"}

    def thinking_budget(self, reasoning: Reasoning | None) -> int | None:
        """``--reasoning-budget``, else ``--reasoning-effort``'s budget (``effort_budget``), else None."""
        if reasoning is None or self.effort_budget is None:
            return None
        return reasoning.budget_or_from_effort(self.effort_budget)

    def budget_mapping(self, reasoning: Reasoning | None, sent: Callable[[int], Any]) -> dict[str, Any]:
        """:meth:`reasoning_mapping` of a token-budget backend: what ``sent(budget)`` sends and how the
        budget was chosen; empty when no budget is asked for."""
        budget = self.thinking_budget(reasoning)
        if budget is None or reasoning is None:
            return {}
        how = "--reasoning-budget" if reasoning.budget_tokens else f"effort → budget {self.effort_budget}"
        return {"sent": sent(budget), "how": how}

    def endpoint(self) -> str:
        """Where requests go, for error messages (a URL for HTTP backends)."""
        return str(getattr(self, "base_url", None) or self.spec)

    def describe(self) -> dict[str, Any]:
        """What the manifest records about this backend (never secrets)."""
        return {"provider": self.provider, "model": self.model, "modalities": sorted(self.accepts())}

    async def aclose(self) -> None:
        """Release connections, threads or GPU memory."""
        return None


class InProcessBackend(Backend):
    """A model running inside this process: whole batches in a worker thread, one batch at a time."""

    prefers_batches: ClassVar[bool] = True
    caches_responses: ClassVar[bool] = True

    @abstractmethod
    def run_batch(self, requests: list[Request]) -> list[Response | BaseException]:
        """Answer a batch synchronously (called in a worker thread)."""

    async def generate(self, request: Request) -> Response:
        return await batch_of_one(self, request)

    async def generate_many(self, requests: Sequence[Request]) -> list[Response | BaseException]:
        lock = self._batch_lock  # made here, on the event loop's thread: never by two threads at once
        return await asyncio.to_thread(self._one_batch_at_a_time, lock, list(requests))

    def _one_batch_at_a_time(
        self, lock: threading.Lock, requests: list[Request]
    ) -> list[Response | BaseException]:
        """Two callers (the model's pool and a judge's sharing the loaded model) never run the model,
        its tokenizer or processor in two threads at once."""
        with lock:
            return self.run_batch(requests)

    @functools.cached_property
    def _batch_lock(self) -> threading.Lock:
        return threading.Lock()

    def max_connections(self) -> int:
        return 1


async def batch_of_one(backend: Backend, request: Request) -> Response:
    """``generate`` for a backend that answers in batches: ``request`` as a batch of one."""
    result = (await backend.generate_many([request]))[0]
    if isinstance(result, BaseException):
        raise result
    return result


backends: Registry[type[Backend]] = Registry("backend", group="omnieval.backends")


def register_backend(provider: str) -> Callable[[type[Backend]], type[Backend]]:
    """Class decorator registering a backend under ``provider`` (the part before ``/``)."""

    def decorate(cls: type[Backend]) -> type[Backend]:
        cls.provider = provider
        backends.add(provider, cls)
        return cls

    return decorate


def optional_sampling(gen: GenerationConfig) -> dict[str, Any]:
    """``top_p``, ``stop`` and ``seed`` where the task sets them: left out otherwise, so the server's default
    holds
    (OpenAI-compatible payloads and vLLM's ``SamplingParams`` share these names)."""
    out: dict[str, Any] = {}
    if gen.top_p is not None:
        out["top_p"] = gen.top_p
    if gen.stop:
        out["stop"] = list(gen.stop)
    if gen.seed is not None:
        out["seed"] = gen.seed
    return out


def split_model_spec(spec: str) -> tuple[str, str]:
    """``openai/gpt-4o`` → (``openai``, ``gpt-4o``); the name may itself contain ``/``."""
    provider, sep, name = spec.partition("/")
    if not sep or not provider or not name:
        raise ConfigError(f"--model must look like PROVIDER/NAME (e.g. openai/gpt-4o), got {spec!r}")
    return provider, name


OPENAI_COMPATIBLE_SERVERS = {
    "ollama": "http://localhost:11434/v1",
    "llamacpp": "http://localhost:8080/v1",
    "llama.cpp": "http://localhost:8080/v1",
    "llama-cpp": "http://localhost:8080/v1",
    "lmstudio": "http://localhost:1234/v1",
    "sglang": "http://localhost:30000/v1",
    "tgi": "http://localhost:8080/v1",
    "localai": "http://localhost:8080/v1",
}
"""Servers reached through ``openai/`` (they speak the OpenAI API), by the name a user may try as a
provider, with their default base URL: ``--model ollama/x`` suggested ``vllm``."""


def backend_class(provider: str) -> Any:
    """The backend class registered as ``provider``; a server that speaks the OpenAI API is named with the
    ``openai/`` spelling and its base URL."""
    server = OPENAI_COMPATIBLE_SERVERS.get(provider.lower())
    if server is not None and provider not in backends:
        raise ConfigError(
            f"{provider} is reached through its OpenAI-compatible API, not a backend of its own: use "
            f"--model openai/MODEL --base-url {server} (MODEL as the server names it)"
        )
    return backends.get(provider)


def check_backend_options(spec: str, options: BackendOptions, *, option: str = "--backend-opt") -> None:
    """Fail before anything runs on an unknown provider, ``--backend-opt`` key or ``--media-opt`` key."""
    provider, name = split_model_spec(spec)
    cls = backend_class(provider)
    check_backend_extra(provider, cls.option_model(name), options.extra, option=option)
    check_media_overrides(options.media)
    if options.stream and not cls.streams:
        raise ConfigError(
            f"--stream: backend {provider!r} cannot stream answers (openai/, for any OpenAI-compatible "
            "server, can)"
        )


def accepted_modalities(spec: str, *, options: BackendOptions) -> frozenset[str]:
    """What the model ``PROVIDER/NAME`` takes, without starting it."""
    provider, name = split_model_spec(spec)
    return backend_class(provider).accepts_for(name, options=options)


def create_backend(spec: str, *, options: BackendOptions | None = None) -> Backend:
    """Build the backend named by ``PROVIDER/NAME``."""
    provider, name = split_model_spec(spec)
    cls = backend_class(provider)
    return cls(name, options=options or BackendOptions())
