"""Wiring the judge stage into a run: one backend per judge spec with its own concurrency pool,
transport retries and response cache; judging runs beside generation, never behind it.

A judged sample's record is written when its judge finishes. The worker that produced the answer
moves on at once (up to ``max_pending`` judged samples wait at a time), so the model under test
stays busy while the judge works.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omnieval.backends import Backend, BackendOptions, InProcessBackend
from omnieval.backends.breaker import DEFAULT_THRESHOLD, JUDGE_OPTIONS, CircuitBreaker
from omnieval.backends.shared import share
from omnieval.runner.config import JudgeConfig, RetryPolicy
from omnieval.runner.costs import RunCosts
from omnieval.runner.execute import Fetcher, pool_size
from omnieval.runner.limiter import AdaptiveLimiter
from omnieval.sources import Task
from omnieval.store import ResponseCache
from omnieval.types import JudgeSpec, Message, Request

if TYPE_CHECKING:
    from omnieval.judges import Judge

__all__ = [
    "JudgeBackendFactory",
    "JudgeStage",
    "default_judge_backend",
    "judge_models",
    "judge_question",
    "judged_spec",
    "reusing_model",
]

JudgeBackendFactory = Callable[[str, BackendOptions], Backend]
"""Builds a judge's backend from its ``PROVIDER/NAME`` and options. An executor passes its own (a
judge shared across shards, under a cluster-wide gate, or served by an actor pool)."""


def default_judge_backend(model: str, options: BackendOptions) -> Backend:
    """The judge's own backend in this process (what a local run uses)."""
    from omnieval.judges import create_judge_backend  # a run without a judge never loads the judges

    return create_judge_backend(model, options=options)


def reusing_model(spec: str, model: Backend) -> JudgeBackendFactory:
    """Judges' backends for a local run: a judge that is the model under test itself (the same spec, an
    in-process model, loaded with the same device, dtype and backend options) judges with the loaded
    model under its own batch size and pool, so it is loaded once, not twice; any other judge is its own."""

    def build(judge: str, options: BackendOptions) -> Backend:
        from omnieval.judges import effective_judge_spec

        same_load = (options.device, options.dtype, options.extra) == (
            model.options.device,
            model.options.dtype,
            model.options.extra,
        )
        if isinstance(model, InProcessBackend) and effective_judge_spec(judge) == spec and same_load:
            return share(model, gate=None, options=options)
        return default_judge_backend(judge, options)

    return build


def judge_models(tasks: list[Task], judge: JudgeConfig | None) -> dict[str, BackendOptions]:
    """Each judge model the tasks use (``--judge`` or a task's default model), with its connection options."""
    options = judge.backend if judge is not None else BackendOptions()
    models: dict[str, BackendOptions] = {}
    for task in tasks:
        model = _judge_model(task, judge)
        if model is not None:
            models[model] = options
    return models


def _judge_model(task: Task, judge: JudgeConfig | None) -> str | None:
    if task.spec.judge is None:
        return None
    return judge.model if judge is not None else task.spec.judge.model


def judge_question(request: Request) -> str:
    """The full rendered prompt as text: what MERA's judge sees as the question."""
    if request.prompt is not None:
        return request.prompt
    return "\n\n".join(_text(m) for m in request.messages if _text(m))


def _text(message: Message) -> str:
    return message.text


def judged_spec(spec: JudgeSpec, judge: JudgeConfig | None) -> JudgeSpec:
    """The task's judge spec with the run's ``--judge-*`` overrides applied."""
    if judge is None:
        return spec
    update: dict[str, Any] = {}
    if judge.generation:
        update["generation"] = spec.generation.model_copy(
            update={k: v for k, v in judge.generation.items() if v is not None}
        )
    if judge.retries is not None:
        update["retries"] = judge.retries
    return spec.model_copy(update=update) if update else spec


@dataclass
class _Endpoint:
    backend: Backend
    fetcher: Fetcher


class JudgeStage:
    """The run's judges by task name, and the background judging of finished samples."""

    def __init__(
        self,
        *,
        tasks: list[Task],
        judge: JudgeConfig | None,
        retry: RetryPolicy,
        cache_path: Path | None,
        breaker_threshold: int = DEFAULT_THRESHOLD,
        max_pending: int = 256,
        backend_factory: JudgeBackendFactory | None = None,
        cache_session: str | None = None,
        costs: RunCosts | None = None,
    ) -> None:
        self._costs = costs
        self._backend_factory = backend_factory or default_judge_backend
        self._cache_session = cache_session
        self._breaker_threshold = breaker_threshold
        self.judges: dict[str, Judge] = {}
        self._endpoints: dict[str, _Endpoint] = {}
        self._cache_path = cache_path
        self._cache: ResponseCache | None = None
        self._failure: BaseException | None = None
        self._retry = retry
        self._pending: set[asyncio.Task[None]] = set()
        self._max_pending = max_pending
        self._slots: asyncio.Semaphore | None = None
        models = judge_models(tasks, judge)
        for task in tasks:
            model = _judge_model(task, judge)
            if task.spec.judge is None or model is None:
                continue
            endpoint = self._endpoint(model, models[model])
            from omnieval.judges import Judge

            self.judges[task.name] = Judge(
                task.name, judged_spec(task.spec.judge, judge), endpoint.backend, fetch=endpoint.fetcher.fetch
            )

    def _endpoint(self, model: str, options: BackendOptions) -> _Endpoint:
        if model not in self._endpoints:
            if self._costs is not None:
                self._costs.check(model, role="judge")  # under --cost-limit: before any request
            backend = self._backend_factory(model, options)
            if self._cache is None and self._cache_path is not None:
                self._cache = ResponseCache(self._cache_path, session=self._cache_session)
            self._endpoints[model] = _Endpoint(backend, self._fetcher(backend))
        return self._endpoints[model]

    def _fetcher(self, backend: Backend) -> Fetcher:
        """The judge's own pool (batching backends get room for whole batches) and its own circuit breaker:
        a dead or misconfigured judge endpoint stops the run, naming the endpoint, as a dead model would."""
        maximum = pool_size(backend)
        breaker = CircuitBreaker(
            f"judge {backend.endpoint()}", threshold=self._breaker_threshold, options_prefix=JUDGE_OPTIONS
        )
        priced = (
            self._costs.priced(f"{backend.provider}/{backend.model}", role="judge")
            if self._costs is not None
            else None
        )
        return Fetcher(
            backend,
            cache=self._cache,
            retry=self._retry,
            limiter=AdaptiveLimiter(maximum),
            breaker=breaker,
            priced=priced,
        )

    def for_task(self, name: str) -> Judge | None:
        return self.judges.get(name)

    def describe(self) -> dict[str, Any]:
        """Per judged task: judge spec, version and backend (the manifest's ``judges`` block)."""
        return {name: judge.describe() for name, judge in self.judges.items()}

    @property
    def retries(self) -> int:
        return sum(e.fetcher.retries for e in self._endpoints.values())

    async def submit(self, job: Callable[[], Awaitable[None]]) -> None:
        """Run ``job`` in the background; waits only while ``max_pending`` jobs are already running."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._max_pending)
        await self._slots.acquire()
        if (
            self._failure is not None
        ):  # a judge job crashed (a template bug): stop the run now, not at the end
            self._slots.release()
            raise self._failure
        task = asyncio.ensure_future(job())
        self._pending.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._pending.discard(task)
        if not task.cancelled() and task.exception() is not None and self._failure is None:
            self._failure = task.exception()
        if self._slots is not None:
            self._slots.release()

    async def drain(self) -> None:
        """Wait for every background judge job; the first failure is raised."""
        while self._pending:
            await asyncio.gather(*list(self._pending))

    async def cancel(self) -> None:
        for task in list(self._pending):
            task.cancel()
        await asyncio.gather(*list(self._pending), return_exceptions=True)

    async def aclose(self) -> None:
        if self._cache is not None:
            self._cache.close()
        for endpoint in self._endpoints.values():
            await endpoint.backend.aclose()
