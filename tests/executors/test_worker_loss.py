"""When the driver takes a worker for lost, without a cluster: Ray's exceptions built by hand."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from omnieval.executors.ray_executor import _Fleet, _Tally
from omnieval.runner import RunConfig


def _fleet(tmp_path: Path, alive: set[str]) -> _Fleet:
    ray = SimpleNamespace(nodes=lambda: [{"NodeID": n, "Alive": True} for n in alive], put=None)
    config = RunConfig(tasks=("x",), model="baseline/oracle", output=tmp_path, quiet=True)
    fleet = _Fleet(ray, config, {}, gate=None)
    fleet.nodes["w1"] = "node-a"
    return fleet


def test_an_actor_error_met_inside_the_worker_is_not_the_worker_s_loss(tmp_path: Path) -> None:
    """Ray raises an exception from inside an actor's method as a ``RayTaskError`` that is also an instance
    of its cause's class: a coordinator's ``ActorDiedError`` met by the worker's shard looked like the
    worker's own death, so a live worker was stopped and the shard's attempt counted (3 of them: "lost
    its worker 3 times"). The worker keeps its place and the shard goes again, uncounted."""
    exceptions = pytest.importorskip("ray.exceptions")
    inner = exceptions.RayTaskError("run_shard", "Traceback ...", exceptions.ActorDiedError())
    failure = inner.as_instanceof_cause()
    assert isinstance(failure, exceptions.RayActorError), "why the driver took it for a lost worker"
    fleet, tally, worker = _fleet(tmp_path, {"node-a"}), _Tally(), object()
    plan: Any = SimpleNamespace(key="s0")
    tally.attempts["s0"] = 1
    assert fleet.transient(failure, "w1", worker, plan, tally)
    assert fleet.idle == [("w1", worker)] and tally.attempts["s0"] == 0 and fleet.workers_lost == 0


def test_a_worker_that_died_or_whose_node_left_is_lost(tmp_path: Path) -> None:
    exceptions = pytest.importorskip("ray.exceptions")
    fleet, tally, plan = _fleet(tmp_path, {"node-b"}), _Tally(), SimpleNamespace(key="s0")
    assert not fleet.transient(exceptions.ActorDiedError(), "w1", object(), plan, tally)  # type: ignore[arg-type]
    unavailable = exceptions.ActorUnavailableError("unavailable", b"\0" * 16)
    assert not fleet.transient(unavailable, "w1", object(), plan, tally), "node-a left"  # type: ignore[arg-type]
    assert fleet.idle == []


def test_what_a_node_s_loss_says_counts_live_and_starting_workers_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lone worker's node left: the run said it "goes on with 0 live worker(s)" while it started a
    replacement; it now says what happens."""
    fleet = _fleet(tmp_path, set())
    fleet.suspects.append("node-a")
    fleet.note_left()
    assert (
        "no worker is left: a replacement starts as soon as the cluster has room" in capsys.readouterr().err
    )
    fleet.idle.append(("w2", object()))
    fleet.starting["w3"] = ("w3", object(), None)  # type: ignore[assignment]
    assert fleet._left_with() == "the run goes on with 1 live worker(s), 1 starting"
