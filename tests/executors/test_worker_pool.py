"""The worker pool and the gate leases over a fake Ray: workers started, placed, lost and stopped, and
the endpoint's slots they hold handed back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from omnieval.executors.gate_leases import LONE, GateStage
from omnieval.executors.worker_pool import Running, Worker
from tests.executors.fake_ray import FakeActor, FakeRay
from tests.executors.ray_parts import Parts, assemble, plan


@pytest.fixture(autouse=True)
def _no_reservation_left() -> Iterator[None]:
    """A run that stops with an error here is not stopped (``run_on_ray`` stops its pool in a ``finally``):
    its reservation of the endpoint must not reach the next test."""
    yield
    LONE.clear()


def _place_all(parts: Parts) -> None:
    for ref in list(parts.pool.starting):
        parts.pool.started(ref)


def test_a_lone_worker_holds_every_slot_and_no_gate_is_started(tmp_path: Path) -> None:
    port = FakeRay()
    parts = assemble(tmp_path, port, [plan("s0", "a")], workers=1, limit=4)
    assert parts.leases.stage is GateStage.LONE and LONE == {"gate-of-endpoint": "lone-s1"}
    assert port.workers[0].args["lease"] == 4 and port.workers[0].args["gate"] is None
    assert port.workers[0].args["options"]["near"] == "node-a", "the first worker near the driver"
    _place_all(parts)
    parts.pool.stop()
    assert port.gates_created == [] and LONE == {}, "the reservation ends with the run"


def test_the_gate_of_several_workers_comes_with_the_first_one_placed_holding_every_slot(
    tmp_path: Path,
) -> None:
    port = FakeRay()
    parts = assemble(tmp_path, port, [plan("s0", "a"), plan("s1", "b")], workers=2, limit=4)
    assert parts.leases.stage is GateStage.DUE and [w.args["lease"] for w in port.workers] == [0, 0]
    first, second = port.workers
    parts.pool.started(next(iter(parts.pool.starting)))
    assert parts.leases.stage is GateStage.OPEN and LONE == {}
    assert port.gates_created == [{first.name: 4}]
    assert sorted(who for who, _ in port.said("attach")) == sorted([first.name, second.name])
    parts.pool.give(plan("s0", "a"), [], "qa", {})  # type: ignore[arg-type]
    assert port.said("run_shard")[0][1][-1] == 4, "the first worker gets the slots with its shard"
    parts.pool.stop()


def test_the_driver_s_seat_runs_shards_only_while_actors_start_and_shares_the_endpoint_s_slots(
    tmp_path: Path,
) -> None:
    port = FakeRay()
    shards = [plan("s0", "a"), plan("s1", "b"), plan("s2", "c")]
    parts = assemble(tmp_path, port, shards, workers=1, limit=4, seat=True)
    [seat] = port.workers
    assert seat.args["options"]["in_driver"] and seat.args["lease"] == 0
    assert parts.leases.stage is GateStage.DUE, "the seat and one actor: the gate path, never two lone leases"
    parts.pool.started(next(iter(parts.pool.starting)))
    assert port.gates_created == [{seat.name: 4}], "the gate comes with the seat, holding every slot for it"
    parts.pool.give(shards[0], [], "qa", {})  # type: ignore[arg-type]
    assert port.said("run_shard")[0][0] == seat.name and port.said("run_shard")[0][1][-1] == 4
    actor = port.workers[-1]
    assert actor is not seat and "in_driver" not in actor.args["options"], (
        "the actor starts after the seat's shard"
    )
    assert actor.args["lease"] is None and actor.args["gate"] is port.named["gate-of-endpoint"], "it leases"
    parts.pool.back(next(r.worker for r in parts.pool.busy.values()))
    assert parts.pool.seat == seat.name, "an actor is still starting: the seat takes the next shard"
    parts.pool.started(next(iter(parts.pool.starting)))
    assert parts.pool.seat is None and [w.owner for w in parts.pool.idle] == [actor.name], "retired"
    assert [who for who, _ in port.said("rest")] == [seat.name] and (
        "ray",
        "kill",
        (seat.name,),
    ) in port.calls
    assert ("gate-of-endpoint", "forget", (seat.name,)) in port.calls, "its slots go back to the gate"
    parts.pool.stop()


def test_the_seat_retires_when_its_shard_ends_and_every_actor_is_up(tmp_path: Path) -> None:
    port = FakeRay()
    parts = assemble(tmp_path, port, [plan("s0", "a"), plan("s1", "b")], workers=1, limit=4, seat=True)
    _place_all(parts)
    parts.pool.give(plan("s0", "a"), [], "qa", {})  # type: ignore[arg-type]
    seat, actor = port.workers
    _place_all(parts)
    assert parts.pool.seat == seat.name, "busy: the seat finishes its shard"
    parts.pool.back(next(r.worker for r in parts.pool.busy.values()))
    assert parts.pool.seat is None, "every actor is up: the seat retired"
    parts.pool.give(plan("s1", "b"), [], "qa", {})  # type: ignore[arg-type]
    assert port.said("run_shard")[-1][0] == actor.name
    parts.pool.stop()


def test_a_gate_another_run_holds_already_is_leased_from(tmp_path: Path) -> None:
    port = FakeRay()
    port.gate("gate-of-endpoint", 4, leases=None)
    parts = assemble(tmp_path, port, [plan("s0", "a")], workers=2, limit=4)
    assert parts.leases.stage is GateStage.OPEN and LONE == {}
    assert all(w.args["lease"] is None and w.args["gate"] is not None for w in port.workers)
    assert len(parts.leases.coordinators) == 1, "its first answer is checked as the run goes"
    parts.pool.stop()


def test_a_lost_worker_s_gate_slots_go_back_and_a_replacement_starts_only_with_room(tmp_path: Path) -> None:
    port = FakeRay()
    parts = assemble(tmp_path, port, [plan("s0", "a"), plan("s1", "b")], workers=2)
    _place_all(parts)
    gate = port.named["gate-of-endpoint"]
    lost = parts.pool.idle.pop()
    parts.pool.lost(lost)
    assert (gate.name, "forget", (lost.owner,)) in port.calls and parts.judges.forgotten == [lost.owner]
    assert ("ray", "kill", (lost.owner,)) in port.calls
    assert len(parts.pool.starting) == 1 and port.workers[-1].args["gate"] is gate, "replaced"
    port.free = {"CPU": 0.0}
    parts.pool.lost(parts.pool.idle.pop())
    assert len(parts.pool.starting) == 1 and parts.pool.workers_lost == 2, "no room: no replacement"
    parts.pool.stop()


def test_a_worker_that_fails_to_start_is_counted_and_said(tmp_path: Path) -> None:
    port = FakeRay()

    def where(actor: FakeActor, args: tuple[object, ...]) -> object:
        raise ModuleNotFoundError("No module named 'omnieval'")

    port.answers["where"] = where
    parts = assemble(tmp_path, port, [plan("s0", "a")], workers=1)
    _place_all(parts)
    assert parts.pool.workers_lost == 1 and parts.pool.idle == []
    assert parts.pool.start_error == "ModuleNotFoundError: No module named 'omnieval'"
    assert parts.pool.stalled(), "no worker and none starting"
    assert "The last worker that failed to start: ModuleNotFoundError" in parts.pool.shrunk(shards_left=1)
    parts.pool.stop()


def test_idle_workers_rest_once_when_nothing_is_left_to_give(tmp_path: Path) -> None:
    port = FakeRay()
    parts = assemble(tmp_path, port, [plan("s0", "a")], workers=2)
    _place_all(parts)
    parts.pool.rest()
    parts.pool.rest()
    assert len(port.said("rest")) == 2, "once per worker"
    parts.pool.stop()


def test_busy_workers_learn_their_larger_share_when_another_goes_idle(tmp_path: Path) -> None:
    port = FakeRay()
    parts = assemble(tmp_path, port, [plan("s0", "a"), plan("s1", "b")], workers=2)
    _place_all(parts)
    parts.pool.give(plan("s0", "a"), [], "qa", {})  # type: ignore[arg-type]
    parts.pool.give(plan("s1", "b"), [], "qa", {})  # type: ignore[arg-type]
    (first, running), (_, other) = parts.pool.busy.items()
    parts.pool.busy.pop(first)
    parts.pool.back(running.worker)  # its shard ended and nothing is left to give
    parts.pool.rest()
    parts.pool.rest()
    assert [who for who, _ in port.said("reshare")] == [other.worker.actor.name], "once, the busy one"
    parts.pool.stop()


def test_a_stopped_pool_hands_back_its_workers_gate_slots(tmp_path: Path) -> None:
    port = FakeRay()
    port.gate("gate-of-endpoint", 4, leases=None)
    parts = assemble(tmp_path, port, [plan("s0", "a")], workers=2)
    _place_all(parts)
    idle, busy = parts.pool.idle
    parts.pool.idle.remove(busy)
    parts.pool.busy["ref"] = Running(busy, plan("s0", "a"))  # a failed run's busy worker holds leased slots
    parts.pool.stop()
    forgotten = [args[0] for who, args in port.said("forget")]
    assert sorted(forgotten) == sorted([idle.owner, busy.owner])
    killed = port.calls.index(("ray", "kill", (busy.owner,)))
    assert killed < port.calls.index(("gate-of-endpoint", "forget", (busy.owner,))), "killed first"
    assert parts.judges.stopped == [idle.owner, busy.owner]


def test_what_a_node_s_loss_says_counts_live_and_starting_workers_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lone worker's node left: the run said it "goes on with 0 live worker(s)" while it started a
    replacement; it now says what happens."""
    port = FakeRay(alive=set())
    parts = assemble(tmp_path, port, [plan("s0", "a")], workers=1)
    parts.pool.starting.clear()
    parts.pool.suspects.append("node-a")
    parts.pool.gone.append("w1")
    parts.pool.note_left()
    said = capsys.readouterr().err
    assert "omnieval: Ray node node-a left the cluster; no worker is left: a replacement starts" in said
    assert parts.judges.forgotten == ["w1"], "the lost workers' slots are handed back again"
    parts.pool.note_left()
    assert capsys.readouterr().err == "", "said once"
    parts.pool.idle.append(Worker("w2", FakeActor("w2", "worker")))
    parts.pool.spawn(lease=None)
    assert parts.pool.left_with() == "the run goes on with 1 live worker(s), 1 starting"
    parts.pool.stop()
