"""The Ray driver's state machine over a fake Ray (no cluster): its phases, each shard answer's step,
and whole runs where workers are lost, unavailable for a moment, or their shards fail."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omnieval.errors import ConfigError
from omnieval.executors.errors import ExecutorError
from omnieval.executors.gate_leases import LONE
from omnieval.executors.ray_driver import Phase, ShardStep, next_phase, shard_step
from omnieval.executors.ray_port import Failure
from omnieval.executors.shard_queue import UNAVAILABLE_RETRIES
from omnieval.store import scan_keys
from tests.executors.fake_ray import FakeActor, FakeFailure, FakeRay
from tests.executors.ray_parts import assemble, plan, report


@pytest.fixture(autouse=True)
def _no_reservation_left() -> Iterator[None]:
    """A run that stops with an error here is not stopped (``run_on_ray`` stops its pool in a ``finally``):
    its reservation of the endpoint must not reach the next test."""
    yield
    LONE.clear()


@pytest.mark.parametrize(
    ("waiting", "idle", "running", "stalled", "phase"),
    [
        (0, 0, 0, False, Phase.DONE),
        (0, 2, 0, True, Phase.DONE),
        (0, 1, 1, False, Phase.DRAIN),
        (2, 1, 0, False, Phase.HAND_OUT),
        (2, 1, 0, True, Phase.HAND_OUT),
        (2, 0, 1, False, Phase.WAIT),
        (2, 0, 0, False, Phase.WAIT),
        (2, 0, 0, True, Phase.STALLED),
    ],
)
def test_each_turn_s_phase(waiting: int, idle: int, running: int, stalled: bool, phase: Phase) -> None:
    assert next_phase(waiting=waiting, idle=idle, running=running, stalled=stalled) is phase


@pytest.mark.parametrize(
    ("failure", "alive", "unavailable", "attempts", "step"),
    [
        (None, True, 0, 1, ShardStep.KEEP),
        (Failure.TASK, True, 0, 1, ShardStep.FAILED),
        (Failure.CALLEE, True, 1, 1, ShardStep.AGAIN_UNCOUNTED),
        (Failure.CALLEE, True, UNAVAILABLE_RETRIES + 1, 1, ShardStep.CALLEE_FAILED),
        (Failure.UNAVAILABLE, True, UNAVAILABLE_RETRIES, 3, ShardStep.AGAIN_UNCOUNTED),
        (Failure.UNAVAILABLE, True, UNAVAILABLE_RETRIES + 1, 1, ShardStep.REPLACE),
        (Failure.UNAVAILABLE, False, 0, 1, ShardStep.REPLACE),
        (Failure.DIED, False, 0, 2, ShardStep.REPLACE),
        (Failure.DIED, False, 0, 3, ShardStep.GIVE_UP),
    ],
)
def test_each_shard_answer_s_step(
    failure: Failure | None, alive: bool, unavailable: int, attempts: int, step: ShardStep
) -> None:
    got = shard_step(failure, alive=alive, unavailable=unavailable, attempts=attempts, max_attempts=3)
    assert got is step


def _dies(times: int) -> Any:
    """``run_shard`` answered by the worker's death, the first ``times`` runs; then the shard finishes."""
    runs: list[int] = []

    def run_shard(actor: FakeActor, args: tuple[Any, ...]) -> Any:
        runs.append(1)
        if len(runs) <= times:
            raise FakeFailure(Failure.DIED, "the actor died unexpectedly")
        return report(args[0])

    return run_shard


def test_a_worker_lost_mid_shard_is_replaced_and_its_shard_run_again(tmp_path: Path) -> None:
    port = FakeRay()
    port.answers["run_shard"] = _dies(2)
    shard = plan("000-qa", "a", "b")
    parts = assemble(tmp_path, port, [shard], max_attempts=3)
    parts.driver.run()
    lost = [w.name for w in port.workers[:2]]
    assert parts.pool.workers_lost == 2 and len(port.workers) == 3, "each lost worker replaced"
    assert [args for who, args in port.said("kill")] == [(name,) for name in lost]
    assert parts.judges.forgotten == lost, "a lost worker's judge slots go back"
    assert all(w.args["lease"] == 4 for w in port.workers), "the lone run's replacements hold every slot"
    assert [k.sample_id for k in scan_keys(tmp_path / "shards" / "000-qa" / "samples.jsonl")] == ["a", "b"]
    assert parts.queue.tally.shards["000-qa"]["attempts"] == 3
    assert parts.queue.tally.states == {"qa": {"ok": 2}}


def test_a_shard_that_loses_its_worker_max_shard_attempts_times_stops_the_run(tmp_path: Path) -> None:
    port = FakeRay()
    port.answers["run_shard"] = _dies(99)
    parts = assemble(tmp_path, port, [plan("000-qa", "a"), plan("001-qa", "b")], max_attempts=2)
    with pytest.raises(ExecutorError, match=r"^shard 000-qa \(task qa\) lost its worker 2 times; giving up$"):
        parts.driver.run()
    assert parts.queue.attempts["000-qa"] == 2 and parts.pool.workers_lost == 1
    assert [p.key for p in parts.queue.todo] == ["001-qa"], "the other shard never ran"


def test_a_worker_unavailable_for_a_moment_keeps_its_place_and_the_attempt_is_not_counted(
    tmp_path: Path,
) -> None:
    runs: list[str] = []

    def run_shard(actor: FakeActor, args: tuple[Any, ...]) -> Any:
        runs.append(actor.name)
        if len(runs) <= UNAVAILABLE_RETRIES:
            raise FakeFailure(Failure.UNAVAILABLE)
        return report(args[0])

    port = FakeRay()
    port.answers["run_shard"] = run_shard
    parts = assemble(tmp_path, port, [plan("000-qa", "a")], max_attempts=1)
    parts.driver.run()
    assert len(set(runs)) == 1 and parts.pool.workers_lost == 0, "the same worker ran it every time"
    assert parts.queue.tally.shards["000-qa"]["attempts"] == 1


def test_an_unavailable_worker_whose_node_left_is_lost(tmp_path: Path) -> None:
    port = FakeRay()

    def run_shard(actor: FakeActor, args: tuple[Any, ...]) -> Any:
        port.alive = {"node-b"}  # its node (node-a) left
        raise FakeFailure(Failure.UNAVAILABLE)

    port.answers["run_shard"] = run_shard
    parts = assemble(tmp_path, port, [plan("000-qa", "a")], max_attempts=1)
    with pytest.raises(ExecutorError, match="lost its worker 1 times"):
        parts.driver.run()


def test_an_actor_the_worker_called_failing_too_often_stops_the_run_naming_it(tmp_path: Path) -> None:
    port = FakeRay()

    def run_shard(actor: FakeActor, args: tuple[Any, ...]) -> Any:
        raise FakeFailure(Failure.CALLEE, "Traceback ...\nActorDiedError: the gate died")

    port.answers["run_shard"] = run_shard
    parts = assemble(tmp_path, port, [plan("000-qa", "a")])
    times = UNAVAILABLE_RETRIES + 1
    message = rf"an actor its worker called failed {times} times: ActorDiedError: the gate died"
    with pytest.raises(ExecutorError, match=message):
        parts.driver.run()
    assert parts.pool.workers_lost == 0 and len(parts.pool.idle) == 1, "the worker was never taken for lost"


@pytest.mark.parametrize(
    ("cause", "expected", "match"),
    [
        (ConfigError("bad judge"), ConfigError, "^bad judge$"),
        (ValueError("boom"), ExecutorError, "^shard 000-qa: boom$"),
    ],
)
def test_a_shard_that_raises_stops_the_run_with_omnieval_s_own_error(
    tmp_path: Path, cause: BaseException, expected: type[BaseException], match: str
) -> None:
    port = FakeRay()

    def run_shard(actor: FakeActor, args: tuple[Any, ...]) -> Any:
        raise FakeFailure(Failure.TASK, "boom", cause=cause)

    port.answers["run_shard"] = run_shard
    with pytest.raises(expected, match=match):
        assemble(tmp_path, port, [plan("000-qa", "a")]).driver.run()


def test_a_run_with_no_worker_left_and_no_room_stops_resumably(tmp_path: Path) -> None:
    port = FakeRay()
    port.answers["run_shard"] = _dies(99)
    port.free = {"CPU": 0.0}
    parts = assemble(tmp_path, port, [plan("000-qa", "a"), plan("001-qa", "b")])
    with pytest.raises(ExecutorError, match=r"the Ray cluster shrank: .* 2 shard\(s\) are left"):
        parts.driver.run()
    assert len(port.workers) == 1, "no replacement where the cluster has no room"
