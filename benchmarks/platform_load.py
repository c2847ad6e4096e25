"""Board-page latency of the web platform under 50 concurrent readers while submissions are scored.

For each database (SQLite in the data dir; PostgreSQL on a throwaway cluster when Debian's binaries
are present) one ``omnieval serve`` process is started with a miniature MERA benchmark and a few
approved submissions on the board. Two phases per database, side by side: *idle* (readers only) and
*scoring* (readers while an uploader posts a new submission every ``--upload-every`` seconds, each
scored by the server's worker). Readers fetch the HTML board page ``/boards/mera/multi`` in a loop.
Idle and scoring phases alternate for ``--rounds`` rounds (the machine's other load then falls on both
alike); each idle phase starts once every earlier upload is scored. Printed per database: requests,
p50/p95/p99 latency of the pooled phases of each kind, then both databases' p99 ratios scoring/idle side
by side. Usage: ``python benchmarks/platform_load.py [--readers 50] [--seconds 5] [--rounds 3] [--n 200]
[--only sqlite]``; ``--memory`` measures one upload's peak memory at the caps instead,
``--concurrent-memory 4`` a live server's while four accounts upload at the caps at once; ``--spray 60`` the
readers' latency idle and under a login spray from 60 addresses.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_PIDS: dict[str, int] = {}
"""Each live server's process id, by its base URL (the spray phases read its CPU time)."""


def _cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) of process ``pid`` in all and of its main thread (the event loop), from
    /proc; argon2's lane threads end with each hash, so their time shows only in the total."""
    tick = os.sysconf("SC_CLK_TCK")

    def read(path: str) -> float:
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    return read(f"/proc/{pid}/stat"), read(f"/proc/{pid}/task/{pid}/stat")


@contextlib.contextmanager
def _server(data_dir: Path, url: str | None) -> Iterator[str]:
    port = _port()
    cmd = [sys.executable, "-m", "omnieval", "serve", "--data-dir", str(data_dir), "--port", str(port)]
    cmd += ["--database-url", url] if url else []
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    _PIDS[base] = proc.pid
    import httpx

    try:
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/api/v1/benchmarks", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        yield base
    finally:
        proc.kill()
        proc.wait()


def _prepare(data_dir: Path, url: str | None, root: Path) -> None:
    from omnieval.platform import Settings
    from omnieval.platform.services.accounts import create_user
    from omnieval.platform.services.benchmarks import add_benchmark
    from omnieval.platform.services.policy import set_policy
    from omnieval.platform.storage.db import Database

    settings = Settings(data_dir=data_dir, database_url=url)
    db = Database(settings)
    with db.session() as session:
        add_benchmark(session, settings, name="mera", tasks_spec=f"mera:{root}")
        set_policy(session, "mera", {"daily_cap": 1_000_000})  # a load test, not a prober
        for name, role in (("reader", "user"), ("seeder", "user"), ("reviewer", "reviewer")):
            create_user(session, username=name, password=f"password-{name}", role=role)
    db.dispose()


def _seed_board(client: Any, base: str, data: bytes, n: int) -> None:
    """``n`` approved submissions so the board has rows to compute."""
    user, rev = _token(client, base, "seeder"), _token(client, base, "reviewer")
    ids = [_upload(client, base, user, data, f"model-{i}") for i in range(n)]
    for sub_id in ids:
        while client.get(f"{base}/api/v1/submissions/{sub_id}", headers=user).json()["status"] not in (
            "scored",
            "failed",
        ):
            time.sleep(0.05)
        client.post(f"{base}/api/v1/submissions/{sub_id}/publish", headers=user, json={"boards": ["multi"]})
        client.post(
            f"{base}/api/v1/reviews/{sub_id}", headers=rev, json={"decision": "approve", "comment": "ok"}
        )


_TOKENS: dict[tuple[str, str], dict[str, str]] = {}


def _token(client: Any, base: str, name: str) -> dict[str, str]:
    """One token per user and server (logins are rate-limited)."""
    if (base, name) in _TOKENS:
        return _TOKENS[(base, name)]
    r = client.post(f"{base}/api/v1/auth/token", json={"username": name, "password": f"password-{name}"})
    _TOKENS[(base, name)] = {"Authorization": f"Bearer {r.json()['token']}"}
    return _TOKENS[(base, name)]


def _upload(client: Any, base: str, headers: dict[str, str], data: bytes, model: str) -> int:
    r = client.post(
        f"{base}/api/v1/submissions",
        headers=headers,
        data={"benchmark": "mera", "model": model},
        files={"file": ("s.zip", data, "application/zip")},
    )
    r.raise_for_status()
    return int(r.json()["id"])


async def _readers(base: str, readers: int, seconds: float, errors: list[str]) -> list[float]:
    import httpx

    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=readers, max_keepalive_connections=readers)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:

        async def reader() -> None:
            while time.monotonic() < deadline:
                start = time.perf_counter()
                try:
                    r = await client.get(f"{base}/boards/mera/multi")
                    r.raise_for_status()
                except httpx.HTTPError as exc:  # counted and printed, never hidden
                    status = exc.response.status_code if isinstance(exc, httpx.HTTPStatusError) else ""
                    errors.append(f"{type(exc).__name__} {status}".strip())
                    continue
                latencies.append(time.perf_counter() - start)

        await asyncio.gather(*(reader() for _ in range(readers)))
    return latencies


def _uploader(base: str, data: bytes, every: float, stop: threading.Event, ids: list[int]) -> None:
    import httpx

    with httpx.Client(timeout=60) as client:
        headers = _token(client, base, "reader")
        while not stop.is_set():
            try:
                ids.append(_upload(client, base, headers, data, f"load-{len(ids)}"))
            except httpx.HTTPStatusError as exc:  # past 20 uploads a minute (long phases): wait, keep going
                if exc.response.status_code != 429:
                    raise
                stop.wait(5.0)
            stop.wait(every)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _phase(base: str, args: argparse.Namespace, data: bytes | None) -> dict[str, Any]:
    """One phase: readers only (``data`` None), or readers while ``data`` is uploaded every few seconds."""
    stop, ids = threading.Event(), []
    thread = None
    if data is not None:
        thread = threading.Thread(
            target=_uploader, args=(base, data, args.upload_every, stop, ids), daemon=True
        )
        thread.start()
    errors: list[str] = []
    latencies = asyncio.run(_readers(base, args.readers, args.seconds, errors))
    stop.set()
    if thread:
        thread.join()
    return {"latencies": latencies, "uploads": len(ids), "errors": errors}


def _summary(phases: list[dict[str, Any]]) -> dict[str, Any]:
    """The phases of one kind pooled: percentiles over every request of every round."""
    latencies = [x for p in phases for x in p["latencies"]]
    errors = [e for p in phases for e in p["errors"]]
    return {
        "n": len(latencies),
        "p50": _pct(latencies, 0.5),
        "p95": _pct(latencies, 0.95),
        "p99": _pct(latencies, 0.99),
        "uploads": sum(p["uploads"] for p in phases),
        "errors": len(errors),
        "kinds": dict(collections.Counter(errors)),
    }


def _statuses(base: str) -> collections.Counter[str]:
    import httpx

    with httpx.Client() as client:
        response = client.get(f"{base}/api/v1/submissions", headers=_token(client, base, "reader"))
        body = response.json()
        if "submissions" not in body:
            raise SystemExit(
                f"{base}: listing submissions failed: {response.status_code} {response.text[:300]}"
            )
    return collections.Counter(s["status"] for s in body["submissions"])


def _drain(base: str, timeout: float = 120.0) -> None:
    """Wait until every upload is scored (or failed): an idle phase must be idle."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not set(_statuses(base)) - {"scored", "failed"}:
            return
        time.sleep(0.2)
    raise SystemExit(f"{base}: uploads still unscored after {timeout:.0f} s")


def run_database(
    label: str, url: str | None, root: Path, data: bytes, args: argparse.Namespace
) -> dict[str, Any]:
    """``args.rounds`` rounds of an idle phase then a scoring phase, alternated so that a change in the
    machine's other load falls on both kinds alike; the phases of each kind are pooled."""
    import httpx

    idle: list[dict[str, Any]] = []
    busy: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        _prepare(Path(tmp) / "data", url, root)
        with _server(Path(tmp) / "data", url) as base:
            with httpx.Client(timeout=60) as client:
                _seed_board(client, base, data, args.models)
            before = _statuses(base)["scored"]
            for _ in range(args.rounds):
                _drain(base)
                idle.append(_phase(base, args, None))
                busy.append(_phase(base, args, data))
            _drain(base)
            scored = _statuses(base)["scored"] - before
    out = {"label": label, "idle": _summary(idle), "scoring": _summary(busy), "scored": scored}
    for kind in ("idle", "scoring"):
        got = out[kind]
        extra = f"  ({got['uploads']} uploads, {scored} scored)" if kind == "scoring" else ""
        print(
            f"{label:10} {kind:8}: {got['n']:6d} requests  p50 {got['p50']:7.1f} ms  "
            f"p95 {got['p95']:7.1f} ms  p99 {got['p99']:7.1f} ms  "
            f"failed {got['errors']} {got['kinds'] or ''}{extra}",
            flush=True,
        )
    return out


def _side_by_side(results: list[dict[str, Any]]) -> None:
    print("\ndatabase   | p99 idle  | p99 scoring | p99 ratio scoring/idle (goal <= 1.3) | p50 ratio")
    for r in results:
        idle, busy = r["idle"], r["scoring"]
        print(
            f"{r['label']:10} | {idle['p99']:6.0f} ms | {busy['p99']:8.0f} ms  | "
            f"{busy['p99'] / idle['p99']:5.2f}{'':31}| {busy['p50'] / idle['p50']:5.2f}"
        )


def run_memory(root: Path, tasks: dict[str, int]) -> None:
    """The process RSS of one upload at the caps: copy, zip checks, validation, then scoring, in a fresh
    process (``tests/platform/upload_memory.py``, which the test of the bound runs too)."""
    from tests.platform.upload_memory import measure

    got = measure(root, tasks)
    print(
        f"memory: one honest upload of {got['zip_mib']:.1f} MiB zipped, {got['json_mib']:.0f} MiB of JSON "
        f"(unpacked cap {got['cap_mib']:.0f} MiB): process RSS {got['base_mb']:.0f} MB after imports, peak "
        f"{got['upload_peak_mb']:.0f} MB while uploaded and validated, {got['scoring_peak_mb']:.0f} MB while "
        f"scored: {got['per_upload_mb']:.0f} MB for the upload (limit 300 MB)"
    )


def run_concurrent_memory(root: Path, tasks: dict[str, int], uploads: int) -> None:
    """The RSS of a live server's process tree (server, scoring child, helpers) while ``uploads`` accounts
    each send an upload at the caps at once, until all are scored (``upload_memory.measure_concurrent``)."""
    from tests.platform.upload_memory import measure_concurrent

    got = measure_concurrent(root, tasks, uploads=uploads)
    print(
        f"memory: {uploads} concurrent honest uploads of {got['zip_mib']:.1f} MiB zipped, "
        f"{got['json_mib']:.0f} MiB of JSON each (unpacked cap {got['cap_mib']:.0f} MiB), received and "
        f"scored in {got['seconds']:.0f} s: server + scoring child RSS {got['idle_total_mb']:.0f} MB idle, "
        f"peak {got['peak_total_mb']:.0f} MB sampled, {got['hwm_total_mb']:.0f} MB as the sum of each "
        f"process's own peak (limit {uploads * 300} MB)"
    )


async def _spray(base: str, addresses: int, seconds: float) -> collections.Counter[str]:
    """Login spraying: from each of ``addresses`` source addresses (127.0.N.2, one /24 each: the server
    counts networks), two loops of wrong-password logins over 1,000 usernames, as fast as answered, for
    ``seconds`` from the moment every client is made (making 60 takes seconds on a loaded machine)."""
    import random

    import httpx

    answers: collections.Counter[str] = collections.Counter()
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(
                    transport=httpx.AsyncHTTPTransport(local_address=f"127.0.{n}.2"), timeout=60
                )
            )
            for n in range(1, addresses + 1)
        ]
        deadline = time.monotonic() + seconds

        async def loop(client: httpx.AsyncClient) -> None:
            while time.monotonic() < deadline:
                body = {"username": f"victim{random.randrange(1000)}", "password": "wrong-password"}
                try:
                    r = await client.post(f"{base}/api/v1/auth/token", json=body)
                    answers[str(r.status_code)] += 1
                except httpx.HTTPError as exc:
                    answers[type(exc).__name__] += 1

        await asyncio.gather(*(loop(client) for client in clients for _ in range(2)))
    return answers


def _spray_process(base: str, addresses: int, seconds: float, out: Any) -> None:
    out.put(dict(asyncio.run(_spray(base, addresses, seconds))))


def _spray_phase(
    base: str, args: argparse.Namespace, spray: bool, sprayed: collections.Counter[str]
) -> dict[str, Any]:
    """One phase of readers, with ``args.spray`` addresses spraying logins when ``spray``; the server's CPU
    time over it (all threads, and the event loop's thread) is added to the phase."""
    import multiprocessing

    pid = _PIDS[base]
    sprayer, queue = None, None
    if spray:
        queue = multiprocessing.Queue()
        sprayer = multiprocessing.Process(
            target=_spray_process, args=(base, args.spray, args.seconds + 1.0, queue)
        )
        sprayer.start()
        time.sleep(1.0)  # the spray under way before the readers start
    (total0, loop0), start = _cpu_seconds(pid), time.monotonic()
    phase = _phase(base, args, None)
    (total1, loop1), took = _cpu_seconds(pid), time.monotonic() - start
    if sprayer is not None and queue is not None:
        sprayed.update(queue.get())
        sprayer.join()
    return {**phase, "cpu": (total1 - total0) / took, "loop_cpu": (loop1 - loop0) / took}


def run_spray(root: Path, data: bytes, args: argparse.Namespace) -> None:
    """Another reader's board latency, idle and while ``args.spray`` addresses spray logins (issue 34.6):
    rounds of an idle and a spray phase alternated; the sprayers run in a process of their own. Printed
    side by side: p50/p95/p99 of each kind, the ratio of the p99s, the server's CPU (cores busy, and the
    event loop's thread alone), the login answers and the load average."""
    import httpx

    idle: list[dict[str, Any]] = []
    busy: list[dict[str, Any]] = []
    sprayed: collections.Counter[str] = collections.Counter()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        _prepare(Path(tmp) / "data", None, root)
        with _server(Path(tmp) / "data", None) as base:
            with httpx.Client(timeout=60) as client:
                _seed_board(client, base, data, args.models)
            for _ in range(args.rounds):
                idle.append(_spray_phase(base, args, False, sprayed))
                busy.append(_spray_phase(base, args, True, sprayed))
    print(
        f"{args.readers} readers of /boards/mera/multi; login spray from {args.spray} addresses (one /24 "
        f"each, 2 connections each); {args.rounds} rounds of {args.seconds:.0f} s phases; load average "
        f"{load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after ({os.cpu_count()} cores)"
    )
    summaries = {}
    for kind, phases in (("idle", idle), ("spray", busy)):
        got = summaries[kind] = _summary(phases)
        cpu = sum(p["cpu"] for p in phases) / len(phases)
        loop = sum(p["loop_cpu"] for p in phases) / len(phases)
        print(
            f"{kind:6}: {got['n']:6d} reads  p50 {got['p50']:7.1f} ms  p95 {got['p95']:7.1f} ms  "
            f"p99 {got['p99']:7.1f} ms  failed {got['errors']} {got['kinds'] or ''}  "
            f"server CPU {cpu:.2f} cores (event loop thread {loop:.2f})"
        )
    idle_p99, spray_p99 = summaries["idle"]["p99"], summaries["spray"]["p99"]
    logins = sum(sprayed.values()) / (args.rounds * (args.seconds + 1.0))
    print("\n| idle p99 | spray p99 | ratio (goal <= 2) | login answers |")
    print(
        f"| {idle_p99:.0f} ms | {spray_p99:.0f} ms | {spray_p99 / idle_p99:.2f} | "
        f"{dict(sprayed)}, {logins:.0f}/s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5.0, help="per phase")
    parser.add_argument("--rounds", type=int, default=3, help="idle/scoring phase pairs, alternated")
    parser.add_argument("--n", type=int, default=200, help="samples per task in the miniature benchmark")
    parser.add_argument("--models", type=int, default=8, help="approved submissions on the board")
    parser.add_argument(
        "--upload-every", type=float, default=0.6, help="seconds (the server allows 20 uploads a minute)"
    )
    parser.add_argument("--only", choices=("sqlite", "postgresql"), default=None)
    parser.add_argument(
        "--memory", action="store_true", help="measure the peak memory of one upload at the caps instead"
    )
    parser.add_argument(
        "--concurrent-memory",
        type=int,
        default=0,
        metavar="N",
        help="measure a live server's RSS while N accounts upload at the caps at once instead",
    )
    parser.add_argument(
        "--spray",
        type=int,
        default=0,
        metavar="N",
        help="measure the readers' board latency idle and under a login spray from N addresses instead",
    )
    args = parser.parse_args()
    from tests.platform.conftest import submission_zip
    from tests.platform.pg import available, postgres_cluster

    from omnieval.benchmarks.mera.mini import make_mini

    with tempfile.TemporaryDirectory() as tmp:
        tasks = {"ruclevr": args.n // 2, "rucommonvqa": args.n // 3, "ruslun": args.n // 4}
        root = make_mini(Path(tmp) / "root", n=args.n, with_answers=True, tasks=list(tasks))
        if args.memory:
            run_memory(root, tasks)
            return
        if args.concurrent_memory:
            run_concurrent_memory(root, tasks, args.concurrent_memory)
            return
        data = submission_zip(root, right=tasks)
        if args.spray:
            run_spray(root, data, args)
            return
        print(
            f"{args.readers} concurrent readers of /boards/mera/multi; {args.rounds} rounds of an idle and a "
            f"scoring phase of {args.seconds:.0f} s each; {args.models} models on the board; "
            f"{args.n} samples per task, 3 tasks per submission"
        )
        results = []
        if args.only in (None, "sqlite"):
            results.append(run_database("sqlite", None, root, data, args))
        if args.only in (None, "postgresql"):
            if not available():
                print("postgresql: skipped (binaries not found; make system-deps)")
            else:
                with postgres_cluster() as cluster:
                    results.append(run_database("postgresql", cluster.new_database(), root, data, args))
        _side_by_side(results)


if __name__ == "__main__":
    main()
