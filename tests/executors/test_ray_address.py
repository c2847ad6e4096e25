"""``--ray-address``: joining a cluster started apart (``ray start --head``), as a cluster node does and as a
remote client (``ray://``) does; the same records and results as a local run; a clear error otherwise."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omnieval.executors import ExecutorOptions
from omnieval.runs.evaluation import evaluate_config
from tests.executors.helpers import CountingServer, config, qa_task, record_set, results

pytestmark = [pytest.mark.network_server, pytest.mark.timeout(240)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(port: int, *, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"nothing listens on port {port} after {seconds} s")


@pytest.fixture(scope="module")
def head() -> Iterator[tuple[str, str]]:
    """A head node in its own session (killed whole at the end); GCS and Ray Client addresses."""
    pytest.importorskip("ray")
    pytest.importorskip("grpc")  # ray[client]
    gcs, client = _free_port(), _free_port()
    temp = tempfile.mkdtemp(prefix="rh")  # short: Ray's socket paths must fit in 107 bytes
    ray_cli = str(Path(sys.executable).with_name("ray"))
    command = [
        ray_cli,
        "start",
        "--head",
        "--block",
        f"--port={gcs}",
        f"--ray-client-server-port={client}",
        "--num-cpus=2",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--temp-dir={temp}",
    ]
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}  # a throwaway test cluster: no token to hand around
    log = open(Path(temp) / "head.log", "wb")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_for(gcs, seconds=90)
        _wait_for(client, seconds=90)
        yield f"127.0.0.1:{gcs}", f"ray://127.0.0.1:{client}"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the head, its GCS, raylet and workers: one session
        proc.wait(timeout=30)
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def test_joining_a_running_cluster_by_address_and_as_a_client(tmp_path: Path, head: tuple[str, str]) -> None:
    task = f"jsonl:{qa_task(tmp_path, 24)}"
    with CountingServer(latency_ms=5).in_thread() as server:
        evaluate_config(config([task], server.url, tmp_path / "local"))
        for name, address in zip(("node", "client"), head, strict=True):
            options = ExecutorOptions(kind="ray", ray_address=address, workers=2, shard_size=8)
            outcome, _ = evaluate_config(config([task], server.url, tmp_path / name), executor=options)
            assert outcome.states == {"qa": {"ok": 24}}
            assert record_set(tmp_path / name) == record_set(tmp_path / "local")
            assert results(tmp_path / name) == results(tmp_path / "local")
    import json

    block = json.loads((tmp_path / "client" / "manifest.json").read_text())["executor"]
    assert block["address"] == head[1] and block["workers"] == 2


def test_an_unreachable_cluster_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    from omnieval.executors.ray_executor import ExecutorError, connect

    def refuse(**_: Any) -> None:
        raise ConnectionError("Failed to connect to Ray cluster at 10.9.9.9:6379")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    with pytest.raises(
        ExecutorError, match=r"--ray-address 10\.9\.9\.9:6379: ConnectionError: .*RAY_AUTH_MODE=token"
    ):
        connect(ExecutorOptions(kind="ray", ray_address="10.9.9.9:6379"))


def test_a_client_connection_is_retried_when_the_server_fails_to_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ray = pytest.importorskip("ray")
    from omnieval.executors import ray_port

    calls: list[str] = []

    def flaky(*, address: str, **_: Any) -> None:
        calls.append(address)
        if len(calls) < 3:
            raise ConnectionAbortedError(
                "Initialization failure from server: Starting Ray client server failed"
            )

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", flaky)
    monkeypatch.setattr(ray_port.time, "sleep", lambda _: None)
    assert ray_port.connect(ExecutorOptions(kind="ray", ray_address="ray://head:10001")) is True
    assert calls == ["ray://head:10001"] * 3
    calls.clear()
    with pytest.raises(ray_port.ExecutorError, match="could not join"):  # a plain address is not retried
        ray_port.connect(ExecutorOptions(kind="ray", ray_address="head:6379"))
    assert calls == ["head:6379"]
