"""The shard worker without Ray: one backend (one model load) for all the shards it runs."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, ClassVar

import pytest

from omnieval.backends import BackendOptions, InProcessBackend, backends
from omnieval.executors.gate import EndpointGate
from omnieval.executors.shards import plan_shards
from omnieval.executors.views import ShardViews
from omnieval.executors.worker import ShardWorker
from omnieval.runner import RunConfig, resolve_tasks
from omnieval.types import Request, Response
from tests.executors.helpers import qa_task, records


class LocalModel(InProcessBackend):
    """A stand-in local model that counts its loads (constructions) and closes."""

    provider = "counting-local"
    loads: ClassVar[int] = 0
    closes: ClassVar[int] = 0

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        type(self).loads += 1

    def run_batch(self, requests: list[Request]) -> list[Response | BaseException]:
        return [Response.from_text(r.messages[-1].text.split("[")[1][0]) for r in requests]

    async def aclose(self) -> None:
        type(self).closes += 1


if "counting-local" not in backends:
    backends.add("counting-local", LocalModel)


def test_one_load_for_every_shard_and_closed_once(tmp_path: Path) -> None:
    task = qa_task(tmp_path, 30)
    config = RunConfig(tasks=(f"jsonl:{task}",), model="counting-local/m", output=tmp_path / "o", quiet=True)
    plans, _ = plan_shards(resolve_tasks(config.tasks), config, shard_size=8, workers=1)
    LocalModel.loads = LocalModel.closes = 0
    worker = ShardWorker(config, owner="w1")

    async def run_all() -> list[dict[str, object]]:
        reports = [await worker.run_shard(plan, [], ShardViews(config).for_shard(plan)) for plan in plans]
        await worker.close()
        return reports

    reports = asyncio.run(run_all())
    assert len(plans) == 4 and [len(r["lines"]) for r in reports] == [8, 8, 8, 6]  # type: ignore[arg-type]
    assert (LocalModel.loads, LocalModel.closes) == (1, 1), (
        "one load per replica, closed when the worker stops"
    )
    for plan in plans:
        assert {r["sample_id"] for r in records(tmp_path / "o" / "shards" / plan.key)} == set(plan.sample_ids)


def test_the_slots_granted_with_each_shard_are_taken_once_and_progress_lists_running_shards(
    tmp_path: Path,
) -> None:
    """The driver sends the gate's creation slots with every shard (a shard refused as unavailable may
    never have run): the worker takes them once. ``progress`` answers for running shards only."""
    task = qa_task(tmp_path, 16)
    config = RunConfig(tasks=(f"jsonl:{task}",), model="counting-local/m", output=tmp_path / "o", quiet=True)
    plans, _ = plan_shards(resolve_tasks(config.tasks), config, shard_size=8, workers=1)
    worker = ShardWorker(config, owner="w1", lease=0)
    assert worker.gate is not None and worker.gate.held == 0

    async def run_all() -> None:
        for plan in plans:
            await worker.run_shard(plan, [], ShardViews(config).for_shard(plan), None, 3)
        await worker.close()

    asyncio.run(run_all())
    assert worker.gate.held == 3, "granted 3 with each of 2 shards: held 3, not 6"
    assert worker.progress() == {}, "no shard is running"


def test_a_failed_gate_tick_never_fails_the_shard(tmp_path: Path) -> None:
    """A worker's gate tick fails (the gate restarting on a live node after its own left): the tick is
    skipped and the shard ends with every record. Before, the failure ended the shard's watcher and, at
    the shard's end, the shard itself, which the driver then took for its worker's loss."""
    from tests.executors.test_gate import _Remote

    task = qa_task(tmp_path, 8)
    config = RunConfig(tasks=(f"jsonl:{task}",), model="counting-local/m", output=tmp_path / "o", quiet=True)
    (plan,), _ = plan_shards(resolve_tasks(config.tasks), config, shard_size=8, workers=1)
    calls: dict[str, int] = {}

    class Restarting(_Remote):
        def __getattr__(self, name: str) -> Any:
            if name != "share" or calls.get("share"):
                return super().__getattr__(name)
            calls["share"] = 1

            class _Unavailable:
                @staticmethod
                async def remote(*args: Any) -> int:
                    raise RuntimeError("the actor is temporarily unavailable")

            return _Unavailable

    worker = ShardWorker(config, owner="w1", gate=Restarting(EndpointGate(2), calls))

    async def run() -> dict[str, Any]:
        report = await worker.run_shard(plan, [], ShardViews(config).for_shard(plan))
        await worker.close()
        return report

    report = asyncio.run(run())
    assert calls["share"] == 1 and len(report["lines"]) == 8


class _FakeRay:
    """What :func:`cache_seeds` asks of Ray: the live nodes, and ``put`` (recorded)."""

    def __init__(self, *nodes: str) -> None:
        self._nodes = nodes
        self.put_rows: list[list[tuple[str, str, str]]] = []

    def nodes(self) -> list[dict[str, object]]:
        return [{"NodeID": n, "Alive": True} for n in self._nodes]

    def put(self, rows: list[tuple[str, str, str]]) -> str:
        self.put_rows.append(rows)
        return f"ref{len(self.put_rows)}"


def test_cache_seeds_ship_the_driver_s_entries_only_where_a_worker_can_be_off_its_node(
    tmp_path: Path,
) -> None:
    from omnieval.executors.ray_sizing import cache_seeds
    from omnieval.store import ResponseCache

    cache = ResponseCache(tmp_path / "cache.sqlite", session="earlier")
    cache.put("k", Response.from_text("7"))
    cache.close()
    cfg = RunConfig(tasks=("t",), model="openai/m", output=tmp_path)
    two = _FakeRay("driver", "other")
    assert cache_seeds(two, cfg, driver="driver") == {"cache_path": "ref1"}, "no judge cache: nothing to ship"
    assert [row[0] for row in two.put_rows[0]] == ["k"] and two.put_rows[0][0][2] == "earlier"
    assert cache_seeds(_FakeRay("driver"), cfg, driver="driver") == {}, (
        "a one-node cluster: no worker elsewhere"
    )
    assert cache_seeds(_FakeRay("driver"), cfg, driver=None) == {"cache_path": "ref1"}, "a Ray Client driver"
    shared = tmp_path / "shared" / "responses.sqlite"
    shared.parent.mkdir()
    (tmp_path / "cache.sqlite").rename(shared)
    explicit = cfg.model_copy(update={"cache_path": shared})
    assert cache_seeds(two, explicit, driver="driver") == {"cache_path": "ref2"}, "an explicit file too"
    assert [row[0] for row in two.put_rows[-1]] == ["k"]
    assert cache_seeds(two, cfg.model_copy(update={"use_cache": False}), driver="driver") == {}


def test_an_off_node_worker_keeps_its_own_copy_of_an_explicit_cache_and_sends_it_back(tmp_path: Path) -> None:
    """An explicit ``--cache-path`` (which need not exist on a worker's node) is filled through the driver,
    as the run's default cache is: the worker off the driver's node answers from its own copy."""
    shared = tmp_path / "shared.sqlite"
    cfg = RunConfig(tasks=("t",), model="openai/m", output=tmp_path / "out", cache_path=shared)
    worker = ShardWorker(cfg, owner="w1", session="s", driver_node="a-node-that-is-not-this-one")
    assert worker.streams
    assert set(worker.caches) == {"cache_path", "judge_cache_path"}
    assert all(tmp_path / "out" not in p.parents and p != shared for p in worker.caches.values())


def test_the_driver_s_seat_answers_on_its_own_loop_and_stops(tmp_path: Path) -> None:
    from omnieval.executors.seat import DriverSeat, SeatError

    config = RunConfig(tasks=("qa",), model="baseline/oracle", output=tmp_path, quiet=True)
    seat = DriverSeat(config, owner="o1", session="s1", driver_node=None)
    assert seat.call("where").result(10)["pid"] == os.getpid()
    failed = seat.call("attach_nothing")
    with pytest.raises(SeatError) as raised:
        failed.result(10)
    assert isinstance(raised.value.cause, AttributeError), "the cause travels, as Ray's RayTaskError.cause"
    seat.call("close").result(10)
    seat.stop()
    assert not seat.thread.is_alive() and seat.loop.is_closed()
