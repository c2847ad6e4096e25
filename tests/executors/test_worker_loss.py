"""When the driver takes a worker for lost, without a cluster: Ray's exceptions built by hand, read by
the real port (:meth:`RealRay.failure`), the rest of Ray faked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omnieval.executors.errors import ExecutorError
from omnieval.executors.gate_leases import LONE
from omnieval.executors.ray_port import Failure, RealRay
from tests.executors.fake_ray import FakeActor, FakeRay
from tests.executors.ray_parts import assemble, plan, report

exceptions = pytest.importorskip("ray.exceptions")


@pytest.fixture(autouse=True)
def _no_reservation_left() -> Iterator[None]:
    """A run that stops with an error here is not stopped (``run_on_ray`` stops its pool in a ``finally``):
    its reservation of the endpoint must not reach the next test."""
    yield
    LONE.clear()


class RayErrors(FakeRay):
    """A fake Ray whose answers raise Ray's own exceptions, read as the executor reads them."""

    def failure(self, exc: BaseException) -> Failure | None:
        return RealRay(None).failure(exc)


def _fails_once(error: BaseException) -> Any:
    runs: list[str] = []

    def run_shard(actor: FakeActor, args: tuple[Any, ...]) -> Any:
        runs.append(actor.name)
        if len(runs) == 1:
            raise error
        return report(args[0])

    return run_shard, runs


def test_ray_s_exceptions_read_as_what_they_say_of_the_worker() -> None:
    failure = RealRay(None).failure
    inner = exceptions.RayTaskError("run_shard", "Traceback ...", exceptions.ActorDiedError())
    assert failure(inner.as_instanceof_cause()) is Failure.CALLEE
    assert failure(exceptions.ActorDiedError()) is Failure.DIED
    assert failure(exceptions.WorkerCrashedError()) is Failure.DIED
    assert failure(exceptions.ActorUnavailableError("unavailable", b"\0" * 16)) is Failure.UNAVAILABLE
    task = exceptions.RayTaskError("run_shard", "Traceback ...", ValueError("boom"))
    assert failure(task.as_instanceof_cause()) is Failure.TASK
    assert failure(exceptions.GetTimeoutError()) is Failure.OTHER
    assert failure(ValueError("not Ray's")) is None


def test_an_actor_error_met_inside_the_worker_is_not_the_worker_s_loss(tmp_path: Path) -> None:
    """Ray raises an exception from inside an actor's method as a ``RayTaskError`` that is also an instance
    of its cause's class: a coordinator's ``ActorDiedError`` met by the worker's shard looked like the
    worker's own death, so a live worker was stopped and the shard's attempt counted (3 of them: "lost
    its worker 3 times"). The worker keeps its place and the shard goes again, uncounted."""
    inner = exceptions.RayTaskError("run_shard", "Traceback ...", exceptions.ActorDiedError())
    failure = inner.as_instanceof_cause()
    assert isinstance(failure, exceptions.RayActorError), "why the driver took it for a lost worker"
    port = RayErrors()
    port.answers["run_shard"], runs = _fails_once(failure)
    parts = assemble(tmp_path, port, [plan("s0", "a")], max_attempts=1)
    parts.driver.run()
    assert len(runs) == 2 and len(set(runs)) == 1, "the same worker ran the shard again"
    assert parts.pool.workers_lost == 0 and port.said("kill") == []
    assert parts.queue.tally.shards["s0"]["attempts"] == 1


@pytest.mark.parametrize("alive", [{"node-a"}, {"node-b"}])
def test_a_worker_that_died_or_whose_node_left_is_lost(tmp_path: Path, alive: set[str]) -> None:
    """A died worker is lost wherever it ran; an unavailable one only once its node (node-a) left."""
    port = RayErrors(alive=alive)
    error = exceptions.ActorDiedError() if alive == {"node-a"} else None
    error = error or exceptions.ActorUnavailableError("unavailable", b"\0" * 16)
    port.answers["run_shard"], runs = _fails_once(error)
    parts = assemble(tmp_path, port, [plan("s0", "a")], max_attempts=1)
    with pytest.raises(ExecutorError, match="lost its worker 1 times"):
        parts.driver.run()
    assert parts.pool.idle == [] and len(runs) == 1, "never run again"
