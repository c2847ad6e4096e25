"""The Ray executor's one door to Ray: what the worker pool, the gate leases and the driver ask of it.

:class:`RayPort` is the typed interface; :class:`RealRay` answers it with Ray itself. The pool, the
leases, the shard queue and the driver's state machine only ever talk to a ``RayPort``, so their logic
is tested against a fake without starting Ray (``tests/executors/fake_ray.py``). Actor handles and
object references are opaque to them: they are handed back to the port, never looked into.
"""

from __future__ import annotations

import concurrent.futures
import os
import time
from collections.abc import Mapping
from enum import Enum
from typing import Any, Protocol

from omnieval.executors.actors import pinned
from omnieval.executors.errors import ExecutorError
from omnieval.executors.gate import EndpointGate
from omnieval.executors.options import ExecutorOptions
from omnieval.executors.seat import DriverSeat, SeatError
from omnieval.executors.worker import ShardWorker

__all__ = [
    "IN_DRIVER",
    "Actor",
    "Failure",
    "RayPort",
    "RealRay",
    "Ref",
    "connect",
    "import_ray",
    "live_nodes",
]

IN_DRIVER = "in_driver"
"""The actor option that makes :meth:`RealRay.worker` start the driver's seat
(:class:`~omnieval.executors.seat.DriverSeat`) instead of an actor."""
SEAT_POLL_S = 0.05
"""While the seat runs, how often :meth:`RealRay.wait` looks at its futures between Ray's answers."""

Ref = Any
"""An object reference: an actor call's or ``put``'s answer, to come."""
Actor = Any
"""An actor handle (a worker, a gate)."""


class Failure(Enum):
    """What an answer's exception says about the worker that was asked."""

    CALLEE = "callee"
    """The worker lives: an actor *it* called failed (Ray raises that as a ``RayTaskError`` that is also
    an instance of its cause's class, an ``ActorDiedError`` included)."""
    UNAVAILABLE = "unavailable"
    """The worker did not answer for a moment (``ActorUnavailableError``); lost only if its node left."""
    DIED = "died"
    """The worker (its process or its node) died."""
    TASK = "task"
    """The shard itself raised."""
    OTHER = "other"
    """Another of Ray's errors."""


class RayPort(Protocol):
    """What the Ray executor's parts ask of Ray."""

    def worker(self, options: Mapping[str, Any], *args: Any, **kwargs: Any) -> Actor:
        """Start a :class:`ShardWorker` actor with these actor options and constructor arguments."""
        ...

    def gate(self, name: str, limit: int, *, leases: dict[str, int] | None) -> Actor:
        """The named endpoint gate, created (holding ``leases``) unless this job has it already."""
        ...

    def named_actor(self, name: str) -> Actor | None:
        """This job's actor of that name, or ``None``."""
        ...

    def call(self, actor: Actor, method: str, *args: Any) -> Ref:
        """Call an actor's method; its answer comes later."""
        ...

    def get(self, refs: Any, *, timeout: float | None = None) -> Any: ...

    def wait(self, refs: list[Ref], *, num_returns: int, timeout: float) -> list[Ref]:
        """The references whose answers are in (at most ``timeout`` seconds of waiting)."""
        ...

    def kill(self, actor: Actor) -> None:
        """Stop an actor for good (no restart)."""
        ...

    def put(self, value: Any) -> Ref: ...

    def live_nodes(self) -> set[str]: ...

    def available_resources(self) -> dict[str, float]: ...

    def near(self, node: str | None) -> dict[str, Any]:
        """Actor options that place a worker on ``node`` if it has room there (see :meth:`RealRay.near`)."""
        ...

    def failure(self, exc: BaseException) -> Failure | None:
        """What ``exc``, raised by :meth:`get`, says (``None``: not one of Ray's errors)."""
        ...


CLIENT_ATTEMPTS = 3


def _join(ray: Any, address: str, runtime_env: dict[str, Any] | None) -> None:
    """``ray.init(address)``; a Ray Client address (``ray://``) is tried up to three times, because the
    cluster starts a server per client and that start fails now and then (observed with Ray 2.60)."""
    attempts = CLIENT_ATTEMPTS if address.startswith("ray://") else 1
    for attempt in range(1, attempts + 1):
        try:
            ray.init(address=address, log_to_driver=False, runtime_env=runtime_env)
            return
        except ConnectionError:  # ConnectionAbortedError: "Initialization failure from server"
            if attempt == attempts:
                raise
            time.sleep(2.0 * attempt)


def connect(options: ExecutorOptions) -> bool:
    """Join ``ray_address`` or start a local Ray; True when this call started it (and must stop it)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    if options.ray_address:
        try:
            _join(ray, options.ray_address, options.runtime_env)
        except Exception as exc:  # ConnectionError, Ray's AuthenticationError, a client timeout...
            raise ExecutorError(
                f"could not join the Ray cluster at --ray-address {options.ray_address}: "
                f"{type(exc).__name__}: {exc}. "
                "Check the address (HOST:6379 from a cluster node, ray://HOST:10001 from elsewhere) and, for "
                "a cluster "
                "with token authentication, RAY_AUTH_MODE=token and the cluster's token (~/.ray/auth_token)"
            ) from None
    else:
        cpus = options.local_cpus or os.cpu_count() or 1
        # "local": a new instance even when another Ray runs on this machine (else init joins it and refuses
        # num_cpus)
        ray.init(
            address="local",
            num_cpus=max(cpus, (options.workers or 1) + options.judge_replicas),
            include_dashboard=False,
            log_to_driver=False,
            runtime_env=options.runtime_env,
        )
    return True


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError("--executor ray needs Ray: pip install 'omnieval[ray]'") from None
    return ray


class RealRay:
    """:class:`RayPort` answered by Ray (the module, connected)."""

    def __init__(self, ray: Any) -> None:
        self.ray = ray
        self._worker_class: Any = None

    def worker(self, options: Mapping[str, Any], *args: Any, **kwargs: Any) -> Actor:
        if options.get(IN_DRIVER):
            return DriverSeat(*args, **kwargs)
        if self._worker_class is None:  # made (and exported to the cluster) once per run, not per worker
            self._worker_class = self.ray.remote(ShardWorker)
        return self._worker_class.options(**options).remote(*args, **kwargs)

    def gate(self, name: str, limit: int, *, leases: dict[str, int] | None) -> Actor:
        actor = self.ray.remote(EndpointGate).options(
            name=name, get_if_exists=True, max_concurrency=10_000, **pinned(self.ray)
        )
        return actor.remote(limit, leases=leases)

    def named_actor(self, name: str) -> Actor | None:
        try:
            return self.ray.get_actor(name)
        except ValueError:  # none of that name in this job
            return None

    def call(self, actor: Actor, method: str, *args: Any) -> Ref:
        if isinstance(actor, DriverSeat):
            return actor.call(method, *args)
        return getattr(actor, method).remote(*args)

    def get(self, refs: Any, *, timeout: float | None = None) -> Any:
        if isinstance(refs, concurrent.futures.Future):  # the seat's answer
            return refs.result(timeout)
        return self.ray.get(refs, timeout=timeout)

    def wait(self, refs: list[Ref], *, num_returns: int, timeout: float) -> list[Ref]:
        seat = [r for r in refs if isinstance(r, concurrent.futures.Future)]
        if not seat:
            ready, _ = self.ray.wait(refs, num_returns=num_returns, timeout=timeout)
            return list(ready)
        return self._wait_with_seat(refs, seat, num_returns=num_returns, timeout=timeout)

    def _wait_with_seat(
        self, refs: list[Ref], seat: list[concurrent.futures.Future[Any]], *, num_returns: int, timeout: float
    ) -> list[Ref]:
        """:meth:`wait` over Ray's references and the seat's futures: Ray asked in short slices."""
        others = [r for r in refs if not isinstance(r, concurrent.futures.Future)]
        deadline = time.monotonic() + timeout
        while True:
            ready: list[Ref] = [f for f in seat if f.done()]
            left = max(0.0, deadline - time.monotonic())
            if others:
                slice_s = 0.0 if len(ready) >= num_returns else min(SEAT_POLL_S, left)
                got, _ = self.ray.wait(others, num_returns=1, timeout=slice_s)
                if got:  # everything in by now
                    got, _ = self.ray.wait(others, num_returns=len(others), timeout=0)
                ready += got
            elif len(ready) < num_returns and left > 0:
                pending = [f for f in seat if not f.done()]
                concurrent.futures.wait(
                    pending, timeout=min(SEAT_POLL_S, left), return_when=concurrent.futures.FIRST_COMPLETED
                )
                continue
            if len(ready) >= num_returns or time.monotonic() >= deadline:
                return ready

    def kill(self, actor: Actor) -> None:
        if isinstance(actor, DriverSeat):
            actor.stop()
            return
        self.ray.kill(actor, no_restart=True)

    def put(self, value: Any) -> Ref:
        return self.ray.put(value)

    def live_nodes(self) -> set[str]:
        return live_nodes(self.ray)

    def available_resources(self) -> dict[str, float]:
        return dict(self.ray.available_resources())

    def near(self, node: str | None) -> dict[str, Any]:
        """Options that place a worker on the driver's node when that node has room for it, else wherever
        Ray likes (a node without CPUs for workers, or with them all taken, lets it go elsewhere at once).
        Ray keeps a started worker process ready there for the driver's job, so the first worker skips a
        process start (~1 s of CPU), and it writes the run's files itself (nothing to stream to the
        driver)."""
        if node is None:  # a Ray Client driver has no node of its own
            return {}
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        strategy = NodeAffinitySchedulingStrategy(node_id=node, soft=True, _spill_on_unavailable=True)
        return {"scheduling_strategy": strategy}

    def failure(self, exc: BaseException) -> Failure | None:
        from ray.exceptions import (
            ActorUnavailableError,
            RayActorError,
            RayError,
            RayTaskError,
            WorkerCrashedError,
        )

        if isinstance(exc, SeatError):  # the driver's seat raised: its shard failed
            return Failure.TASK
        if isinstance(exc, RayActorError | WorkerCrashedError):
            if isinstance(exc, RayTaskError):
                return Failure.CALLEE
            return Failure.UNAVAILABLE if isinstance(exc, ActorUnavailableError) else Failure.DIED
        if isinstance(exc, RayTaskError):
            return Failure.TASK
        return Failure.OTHER if isinstance(exc, RayError) else None


def live_nodes(ray: Any) -> set[str]:
    return {str(n["NodeID"]) for n in ray.nodes() if n.get("Alive")}
