"""Getting one response: cache lookup, the backend call with retries and backoff, timeouts."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable

from omnieval.backends import Backend
from omnieval.backends.breaker import CircuitBreaker, EndpointDown
from omnieval.errors import BackendError
from omnieval.runner.config import RetryPolicy
from omnieval.runner.costs import Priced
from omnieval.runner.limiter import AdaptiveLimiter
from omnieval.store import ResponseCache
from omnieval.types import Request, Response

__all__ = ["Batcher", "Fetcher", "pool_size"]


def pool_size(backend: Backend) -> int:
    """Requests a backend may have in flight. A batching (local) backend declares one connection, but
    needs room for two whole batches, one running and one filling; held to one, it got batches of one."""
    if backend.prefers_batches:
        return max(1, backend.options.batch_size) * 2
    return backend.max_connections()


class Batcher:
    """Collects requests for backends that prefer batches; flushes when full or after a short wait."""

    def __init__(self, backend: Backend, *, size: int, wait_s: float = 0.02) -> None:
        self.backend = backend
        self.size = max(1, size)
        self.wait_s = wait_s
        self._pending: list[tuple[Request, asyncio.Future[Response]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._running: set[asyncio.Task[None]] = set()

    async def generate(self, request: Request) -> Response:
        future: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self._pending.append((request, future))
        if len(self._pending) >= self.size:
            self._flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.wait_s, self._flush)
        return await future

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._pending = self._pending[: self.size], self._pending[self.size :]
        if batch:
            task = asyncio.ensure_future(self._run(batch))
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        if self._pending:
            self._timer = asyncio.get_running_loop().call_later(self.wait_s, self._flush)

    async def _run(self, batch: list[tuple[Request, asyncio.Future[Response]]]) -> None:
        try:
            outputs = await self.backend.generate_many([r for r, _ in batch])
        except BaseException as exc:  # the whole batch failed: every request gets the error
            outputs = [exc] * len(batch)
        for (_, future), out in zip(batch, outputs, strict=True):
            if future.done():
                continue
            if isinstance(out, BaseException):
                future.set_exception(out)
            else:
                future.set_result(out)


class Fetcher:
    """Cache → backend, with retries; always returns a Response (errors as values)."""

    def __init__(
        self,
        backend: Backend,
        *,
        cache: ResponseCache | None,
        retry: RetryPolicy,
        limiter: AdaptiveLimiter,
        breaker: CircuitBreaker | None = None,
        priced: Priced | None = None,
        call: Callable[[Request], Awaitable[Response]] | None = None,
        timeout_s: float | None = -1.0,
    ) -> None:
        self.backend = backend
        self.priced = priced
        """The endpoint's price and the run's cost meter (``--cost-limit``); ``None``: costs not tracked."""
        self.breaker = breaker
        self.cache = cache if backend.caches_responses else None
        self.retry = retry
        self.limiter = limiter
        self.retries = 0
        self._call: Callable[[Request], Awaitable[Response]] = backend.generate
        if backend.prefers_batches:
            self._call = Batcher(backend, size=backend.options.batch_size).generate
        if call is not None:
            self._call = call
        self._timeout = backend.options.timeout_s * 2 + 5 if timeout_s == -1.0 else timeout_s
        """Seconds one call may take; ``None`` for provider batches (hours, by the provider's window)."""

    async def fetch(self, request: Request, fingerprint: str) -> Response:
        if self.cache is not None:
            hit = self.cache.get(fingerprint)
            if hit is not None:
                return hit if self.priced is None else hit.model_copy(update={"cost_usd": 0.0})
        if self.priced is not None:
            response = await self._priced(request, self.priced)
        else:
            response = await self._with_retries(request)
        if self.cache is not None and response.error is None:
            self.cache.put(fingerprint, response)
        return response

    async def _priced(self, request: Request, priced: Priced) -> Response:
        """Reserve the request's worst-case cost first (raises ``CostLimitReached``), then count its cost."""
        reserved = priced.reserve(request)
        try:
            response = await self._with_retries(request)
        except BaseException:
            priced.meter.settle(reserved, 0.0)
            raise
        return priced.settle(reserved, response)

    async def _with_retries(self, request: Request) -> Response:
        last = "no attempt made"
        for attempt in range(self.retry.max_attempts):
            started = time.perf_counter()
            if self.breaker is not None:
                self.breaker.check()  # another request found the endpoint dead: stop, leave unfinished
            try:
                async with (
                    self.limiter,
                    asyncio.timeout(self._timeout),
                ):  # not wait_for: it can swallow a cancel
                    response = await self._call(request)
            except BackendError as exc:
                last = str(exc)
                if self.breaker is not None:
                    self.breaker.failed(exc)  # raises EndpointDown when it trips
                if exc.rate_limited:
                    self.limiter.rate_limited()
                if not exc.retryable:
                    return Response.from_error(last)
                if attempt + 1 < self.retry.max_attempts:
                    await self._sleep(attempt, exc.retry_after)
                continue
            except TimeoutError:
                last = f"no answer within {self._timeout or 0:.0f} s"
                if attempt + 1 < self.retry.max_attempts:
                    await self._sleep(attempt, None)
                continue
            except EndpointDown:  # the backend itself knows its endpoint is gone for good: stop the run
                raise
            except Exception as exc:  # an unexpected backend bug becomes this sample's error
                return Response.from_error(f"{type(exc).__name__}: {exc}")
            self.limiter.succeeded()
            if self.breaker is not None:
                self.breaker.succeeded()
            if response.latency_s is None:
                response = response.model_copy(update={"latency_s": time.perf_counter() - started})
            return response
        return Response.from_error(f"gave up after {self.retry.max_attempts} attempts: {last}")

    async def _sleep(self, attempt: int, retry_after: float | None) -> None:
        self.retries += 1
        if retry_after is not None:
            delay = min(retry_after, self.retry.max_delay_s)
        else:
            delay = min(self.retry.base_delay_s * 2**attempt, self.retry.max_delay_s)
            delay *= 0.5 + random.random()  # jitter
        await asyncio.sleep(delay)
