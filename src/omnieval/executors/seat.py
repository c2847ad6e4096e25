"""The driver's seat: a shard worker inside the driver process, so a run's first requests go out while
the worker actors are still starting.

A worker actor on another node is a new process (Python, Ray, omnieval: 1-2 s before its first request),
and no cluster keeps one ready for a new job. The seat is a :class:`~omnieval.executors.worker.ShardWorker`
on an event loop of its own in a thread of the driver: it starts at once, on the driver's node (it writes
the run's files itself, as a worker there does), and takes shards only while worker actors are still
starting (:class:`~omnieval.executors.worker_pool.WorkerPool` retires it once they are up). It leases its
slots from the endpoint's gate as any worker does, so ``--concurrency`` holds across the seat and the
actors. :class:`~omnieval.executors.ray_port.RealRay` answers its calls with futures, next to Ray's
object references.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
from concurrent.futures import Future
from typing import Any

from omnieval.executors.worker import ShardWorker

__all__ = ["STOP_S", "DriverSeat", "SeatError"]

STOP_S = 10.0
"""How long stopping the seat waits for its cancelled shard to unwind."""


class SeatError(Exception):
    """A seat's call raised (``cause``): the shard failed, as a ``RayTaskError`` says for an actor."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.cause = cause


class DriverSeat:
    """A :class:`ShardWorker` on its own event loop in a daemon thread of the driver."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.worker = ShardWorker(*args, **kwargs)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="omnieval-driver-seat", daemon=True)
        self.thread.start()

    def call(self, method: str, *args: Any) -> Future[Any]:
        """The worker's ``method`` run on the seat's loop; its answer comes as a future."""

        async def invoke() -> Any:
            try:
                answer = getattr(self.worker, method)(*args)
                return await answer if inspect.isawaitable(answer) else answer
            except Exception as exc:
                raise SeatError(exc) from exc

        return asyncio.run_coroutine_threadsafe(invoke(), self.loop)

    def stop(self) -> None:
        """Cancel whatever still runs and end the loop's thread (a shard cut short resumes from its file)."""
        if not self.thread.is_alive():
            return

        def cancel() -> None:
            for task in asyncio.all_tasks(self.loop):
                task.cancel()
            self.loop.call_later(0.05, self.loop.stop)  # the cancelled tasks unwind first

        with contextlib.suppress(RuntimeError):  # the loop is closed already
            self.loop.call_soon_threadsafe(cancel)
        self.thread.join(timeout=STOP_S)
        if not self.thread.is_alive():
            self.loop.close()
