"""The login spray defences as mechanisms (issue 34.6): the hashing pool's bound and priority, the door's
fair order between networks, and refusals answered before anything is hashed. No timings are asserted."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from typing import Any

import pytest

from omnieval.platform.errors import Busy
from omnieval.platform.routes.login_gate import LoginGate, Window
from omnieval.platform.services.hashing import HashPool


def test_the_hashing_pool_never_runs_more_than_its_workers_and_refuses_past_pending() -> None:
    pool = HashPool(workers=2, pending=5, nice=0)
    running, peak, ran, lock, release = [0], [0], [0], threading.Lock(), threading.Event()

    def job() -> str:
        with lock:
            running[0] += 1
            ran[0] += 1
            peak[0] = max(peak[0], running[0])
        release.wait(5)
        with lock:
            running[0] -= 1
        return "hashed"

    outcomes: list[str] = []

    def caller() -> None:
        try:
            outcomes.append(pool.run(job))
        except Busy:
            outcomes.append("busy")

    callers = [threading.Thread(target=caller) for _ in range(5)]
    for thread in callers:
        thread.start()
    deadline = time.monotonic() + 5
    while running[0] < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    caller()  # a sixth while 5 are in: refused at once, never run
    assert outcomes == ["busy"] and ran[0] == 2  # 2 running, 3 waiting, nothing else started
    release.set()
    for thread in callers:
        thread.join(5)
    assert sorted(outcomes) == ["busy"] + ["hashed"] * 5
    assert peak[0] == 2 and ran[0] == 5


def test_the_hashing_pool_passes_the_hash_error_back() -> None:
    def wrong() -> None:
        raise ValueError("wrong password")

    with pytest.raises(ValueError, match="wrong password"):
        HashPool(workers=1, pending=1, nice=0).run(wrong)


def test_hashes_run_in_niced_threads_and_the_caller_keeps_its_priority() -> None:
    def priority() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    mine = priority()
    inside = HashPool(workers=1, pending=1, nice=3).run(priority)
    assert inside == min(19, mine + 3) and priority() == mine


async def _call(gate: Any, path: str, network: str, body: dict[str, Any] | None = None) -> tuple[int, dict]:
    """One POST through ``gate`` from ``network``'s host .2; the status and headers it was answered."""
    payload = json.dumps(body or {}).encode()
    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "headers": [(b"content-type", b"application/json")],
        "query_string": b"",
        "client": (f"{network}.2", 40000),
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": payload, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await gate(scope, receive, send)
    return int(sent[0]["status"]), dict(sent[0]["headers"])


class RecordingApp:
    """An app standing for the login route: records who got in and what body it read; waits for a signal."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.bodies: list[bytes] = []
        self.release = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.order.append(scope["client"][0].rsplit(".", 1)[0])
        self.bodies.append((await receive())["body"])
        await self.release.wait()
        await send({"type": "http.response.start", "status": 401, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def test_the_door_lets_networks_in_round_robin_not_first_come() -> None:
    """Network A queues 5 logins before network B's 2; one at a time inside: B's wait behind one of A's
    each, not behind all of them."""

    async def scenario() -> list[str]:
        app = RecordingApp()
        gate = LoginGate(app, inside=1, waiting=100)
        tasks = [asyncio.create_task(_call(gate, "/api/v1/auth/token", "10.0.1")) for _ in range(6)]
        await asyncio.sleep(0.05)
        tasks += [asyncio.create_task(_call(gate, "/api/v1/auth/token", "10.0.2")) for _ in range(2)]
        await asyncio.sleep(0.05)
        assert (gate.in_app, gate.waiting) == (1, 7)
        app.release.set()
        await asyncio.gather(*tasks)
        return app.order

    order = asyncio.run(scenario())
    a, b = "10.0.1", "10.0.2"
    assert order == [a, a, b, a, b, a, a, a]  # the first went straight in; then A and B take turns


def test_a_full_queue_answers_429_at_once_without_entering_the_app() -> None:
    """Past ``per_network`` waiting from one network (or ``waiting`` in all), a login is answered 429 with
    ``Retry-After`` before the app (and its hash) ever sees it; another network still queues."""

    async def scenario() -> tuple[list[int], dict, int, int, int]:
        app = RecordingApp()
        gate = LoginGate(app, inside=1, waiting=4, per_network=2)
        tasks = [asyncio.create_task(_call(gate, "/api/v1/auth/token", "10.0.1")) for _ in range(3)]
        await asyncio.sleep(0.05)  # 1 inside, 2 waiting: network A's share of the queue is full
        status, headers = await asyncio.wait_for(_call(gate, "/api/v1/auth/token", "10.0.1"), 5)
        entered = len(app.order)
        others = [asyncio.create_task(_call(gate, "/api/v1/auth/register", "10.0.2")) for _ in range(2)]
        await asyncio.sleep(0.05)
        full, _ = await asyncio.wait_for(_call(gate, "/api/v1/auth/register", "10.0.3"), 5)  # 4 waiting
        app.release.set()
        answers = [s for s, _ in await asyncio.gather(*tasks, *others)]
        return answers, headers, status, entered, full

    answers, headers, status, entered, full = asyncio.run(scenario())
    assert status == 429 and int(headers[b"retry-after"]) >= 1 and entered == 1
    assert full == 429
    assert answers == [401] * 5  # everyone who queued got in, in turn


def test_the_door_backs_off_per_account_and_per_network_before_hashing() -> None:
    """The gate counts attempts per account (any spelling) and per network as the database limits do, and
    refuses past them with 429 and ``Retry-After`` without entering the app: no hash, no thread."""
    now = [1000.0]

    async def scenario() -> tuple[list[int], list[int], tuple[int, int], dict]:
        app = RecordingApp()
        app.release.set()
        gate = LoginGate(
            app,
            inside=2,
            waiting=10,
            network_limits={"login": (5, 60.0), "register": (1, 3600.0)},
            account_limit=(2, 300.0),
            clock=lambda: now[0],
        )
        login = "/api/v1/auth/token"
        spellings = [
            await _call(gate, login, f"10.0.{n}", {"username": name, "password": "x" * 8})
            for n, name in enumerate(("Admin", "ADMIN", "admin", "reviewer"), start=1)
        ]
        network = [
            (await _call(gate, login, "10.9.9", {"username": f"v{i}", "password": "x" * 8}))[0]
            for i in range(6)
        ]
        first, _ = await _call(gate, "/api/v1/auth/register", "10.8.8", {"username": "new1", "password": "x"})
        status, headers = await _call(
            gate, "/api/v1/auth/register", "10.8.8", {"username": "n2", "password": "x"}
        )
        now[0] += 301
        later = (await _call(gate, login, "10.0.7", {"username": "admin", "password": "x" * 8}))[0]
        assert b"Admin" in app.bodies[0]  # the app reads the body the gate read
        return [s for s, _ in spellings] + [later], network, (first, status), headers

    accounts, network, registrations, headers = asyncio.run(scenario())
    assert accounts == [401, 401, 429, 401, 401]  # admin backs off, whatever the case; reviewer does not
    assert network == [401] * 5 + [429]
    assert registrations == (401, 429) and int(headers[b"retry-after"]) > 3000  # 1 an hour per network


def test_a_window_keeps_bounded_memory_under_a_spray_over_many_names() -> None:
    now = [0.0]
    window = Window(3, 60.0, clock=lambda: now[0], max_keys=100)
    for i in range(1000):
        window.record(f"victim{i}")
    assert len(window) == 100  # the oldest names went first
    now[0] += 61
    window.record("late")
    assert len(window) == 1  # everything else left its window


def test_a_request_not_let_in_within_max_wait_is_answered_429_and_leaves_the_queue() -> None:
    async def scenario() -> tuple[int, dict, int, int]:
        app = RecordingApp()
        gate = LoginGate(app, inside=1, waiting=10, max_wait_s=0.05)
        first = asyncio.create_task(_call(gate, "/api/v1/auth/token", "10.0.1"))
        await asyncio.sleep(0.01)
        status, headers = await asyncio.wait_for(_call(gate, "/api/v1/auth/token", "10.0.2"), 5)
        waiting, entered = gate.waiting, len(app.order)
        app.release.set()
        await first
        return status, headers, waiting, entered

    status, headers, waiting, entered = asyncio.run(scenario())
    assert status == 429 and b"retry-after" in headers and (waiting, entered) == (0, 1)
