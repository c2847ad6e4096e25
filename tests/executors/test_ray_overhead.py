"""What a Ray run starts before its first request (issue 23, overhead): an API model's default worker
count follows its endpoint's concurrency, a lone worker holds every slot itself (no gate process), and
the endpoint's limit holds all the same, also when another run of the process comes to the endpoint."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from omnieval.executors import ExecutorOptions
from omnieval.executors.gate_leases import LONE
from omnieval.executors.ray_port import RealRay
from omnieval.executors.ray_sizing import SLOTS_PER_WORKER, worker_count
from omnieval.runs.evaluation import evaluate_config
from tests.executors.helpers import CountingServer, config, qa_task, record_set, results

pytestmark = [pytest.mark.network_server, pytest.mark.timeout(240)]


class _Resources:
    """``ray.cluster_resources()`` of a cluster that is not there."""

    def __init__(self, cpus: float, gpus: float = 0.0) -> None:
        self.resources = {"CPU": cpus, "GPU": gpus}

    def cluster_resources(self) -> dict[str, float]:
        return dict(self.resources)


def _api_workers(concurrency: int, *, cpus: float = 8, **options: Any) -> int:
    return worker_count(
        ExecutorOptions(kind="ray", **options),
        _Resources(cpus),
        local_model=False,
        gpus=0.0,
        reserved={},
        concurrency=concurrency,
    )


def test_an_api_model_gets_one_worker_per_64_slots_of_its_endpoint_at_most_the_cpus() -> None:
    assert SLOTS_PER_WORKER == 64
    assert _api_workers(32) == 1, "32 slots: one process keeps them full"
    assert _api_workers(64) == 1
    assert _api_workers(65) == 2
    assert _api_workers(256) == 4
    assert _api_workers(10_000) == 8, "never more workers than the cluster's CPUs"
    assert _api_workers(10_000, cpus_per_worker=2) == 4
    assert _api_workers(32, workers=3) == 3, "--workers wins"
    local = worker_count(
        ExecutorOptions(kind="ray"), _Resources(8, 4), local_model=True, gpus=1.0, reserved={}, concurrency=32
    )
    assert local == 4, "a local model: one replica per GPU, whatever the concurrency"


def _counting_gates(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, int] | None]:
    created: list[dict[str, int] | None] = []
    real = RealRay.gate

    def spy(self: RealRay, name: str, limit: int, *, leases: dict[str, int] | None) -> Any:
        created.append(leases)
        return real(self, name, limit, leases=leases)

    monkeypatch.setattr(RealRay, "gate", spy)
    return created


def _local_then_ray(tmp_path: Path, *, n: int, workers: int, latency_ms: float, seat: bool = True) -> int:
    """A local run, then a Ray run of ``workers`` (and the driver's seat, with ``seat``) on the same task and
    endpoint (limit 3); returns the most requests the server saw at once during the Ray run."""
    task = f"jsonl:{qa_task(tmp_path, n)}"
    with CountingServer(latency_ms=latency_ms).in_thread() as server:
        evaluate_config(config([task], server.url, tmp_path / "local", concurrency=3))
        server.peak = 0
        evaluate_config(
            config([task], server.url, tmp_path / "ray", concurrency=3),
            executor=ExecutorOptions(kind="ray", workers=workers, shard_size=8, driver_seat=seat),
        )
        return server.peak


def test_a_lone_worker_starts_no_gate_and_keeps_the_limit(
    tmp_path: Path, cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gates = _counting_gates(monkeypatch)
    peak = _local_then_ray(tmp_path, n=40, workers=1, latency_ms=30, seat=False)
    assert gates == [], "one worker (no driver's seat) on an endpoint nobody else uses: no gate actor"
    assert record_set(tmp_path / "ray") == record_set(tmp_path / "local")
    assert peak == 3, f"the lone worker keeps its 3 slots full and never more, the server saw {peak}"
    assert LONE == {}, "the lone run is forgotten when it ends"


def test_two_runs_of_one_process_on_one_endpoint_share_its_limit(
    tmp_path: Path, cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs in threads (a library user's): one goes lone, the other creates the gate holding all the
    lone run's slots and gets them when the lone run ends; the server never sees more than the limit."""
    task = f"jsonl:{qa_task(tmp_path, 30)}"
    gates = _counting_gates(monkeypatch)
    failures: list[BaseException] = []
    with CountingServer(latency_ms=80).in_thread() as server:

        def run(name: str) -> None:
            try:
                evaluate_config(
                    config([task], server.url, tmp_path / name, concurrency=3),
                    executor=ExecutorOptions(kind="ray", workers=1, shard_size=8, driver_seat=False),
                )
            except BaseException as exc:  # reported below
                failures.append(exc)

        threads = [threading.Thread(target=run, args=(name,)) for name in ("a", "b")]
        threads[0].start()
        deadline = time.monotonic() + 120
        while not LONE and time.monotonic() < deadline:  # "a" went lone: now "b" comes
            time.sleep(0.01)
        lone = next(iter(LONE.values()))
        threads[1].start()
        for thread in threads:
            thread.join(200)
        peak = server.peak
    assert not failures, failures
    assert all(results(tmp_path / name)["states"]["ok"] == 30 for name in ("a", "b"))
    assert peak <= 3, f"two runs on one endpoint of limit 3, the server saw {peak} at once"
    assert gates == [{lone: 3}], "the second run's gate was created holding the lone run's 3 slots"
    assert LONE == {}


def test_the_gate_of_several_workers_is_created_when_the_first_starts_holding_every_slot_for_it(
    tmp_path: Path, cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers: the gate comes after the first worker is up and is created holding all 3 slots for
    it (it fills the endpoint alone while the second starts); records equal a local run's and the server
    never sees more than 3. With the driver's seat (the default) the seat is that first worker: the run's
    first shard runs in this process."""
    gates = _counting_gates(monkeypatch)
    peak = _local_then_ray(tmp_path, n=48, workers=2, latency_ms=40)
    assert len(gates) == 1 and list((gates[0] or {}).values()) == [3], gates
    shards = json.loads((tmp_path / "ray" / "manifest.json").read_text())["executor"]["shards"]
    first = min(shards.values(), key=lambda shard: shard["started"])
    assert first["pid"] == os.getpid(), "the first shard ran in the driver's seat"
    assert record_set(tmp_path / "ray") == record_set(tmp_path / "local")
    assert 2 <= peak <= 3, f"two workers on a limit of 3, the server saw {peak} at once"
    assert LONE == {}, "the run's reservation ended when its gate was created"
