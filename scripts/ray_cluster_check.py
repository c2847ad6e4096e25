"""Issues 23 and 35, run literally on a `ray start` cluster on this machine (not a test: it starts real
Ray processes for a few minutes and, for `--hide-driver`, needs root for mount namespaces).

A head without CPUs (the driver's node), a node with 1 CPU and one with 2, each `ray start` in its own empty
working directory, on ports of its own, with a Ray temp dir and a TMPDIR of its own (so no node sees another's
per-node temp folder); with `--hide-driver` the two worker nodes run in a mount namespace where the driver's
directory is an empty tmpfs, so they cannot read a file of it. Every Ray run uses `--workers 3` (the gate
path: several workers share the endpoint's limit) and must have its coordinators (the model's gate) on the
head, the driver's node, though the head has no CPU.
From the driver's directory (not the cluster's), with a relative `--tasks jsonl:data/qa.jsonl,pics.yaml`
(a media folder `data/img`) and a relative `--output`:

A. `omnieval run ... --executor ray --ray-address ADDR`: exit 0, the records and results of a local run,
   nothing in the nodes' working directories, every response in the driver's `OUTPUT/cache.sqlite`;
   the same output run again with its records deleted asks the endpoint nothing;
B. the same, with the 2-CPU node killed (SIGKILL to its raylet and workers) at several moments: as soon as
   a shard runs there (no record yet), once a shard there has written 2 records, and once half the run's
   records are in (the node is started again between them): exit 0, every sample exactly once, a local
   run's records; the requests sent again (counted at the server) are printed;
D. the driver killed (SIGKILL) once half the records are in, then the same command again: a local run's
   records; the requests sent again are printed.

    python scripts/ray_cluster_check.py --samples 600 --hide-driver

Every process it starts is stopped at the end (by its own process group, never `ray stop`).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
SRC = Path(__file__).resolve().parents[1] / "src"
MEDIA_TASK = (
    "name: pics\nmodalities: [image]\n"
    "source: {type: jsonl, path: data/pics.jsonl, fields: {media: [{field: image, kind: image}]}}\n"
)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _node_ports() -> list[str]:
    """Every port a node opens, chosen here, so nothing collides with another cluster on the machine."""
    names = ("node-manager", "object-manager", "dashboard-agent-listen", "dashboard-agent-grpc")
    names += ("runtime-env-agent", "metrics-export")
    return [f"--{name}-port={_port()}" for name in names] + ["--disable-usage-stats", "--block"]


class Cluster:
    """The `ray start` processes (and the fake endpoint), each in its own process group."""

    def __init__(self, base: Path, env: dict[str, str], *, hide: Path | None) -> None:
        self.base, self.env, self.hide = base, env, hide
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(
        self, command: list[str], cwd: Path, log: str, *, worker: bool = False, tmpdir: Path | None = None
    ) -> subprocess.Popen[bytes]:
        """``tmpdir``: the node's own TMPDIR (its workers inherit it from its raylet)."""
        env = self.env if tmpdir is None else {**self.env, "TMPDIR": str(tmpdir)}
        if worker and self.hide is not None:  # the driver's directory is an empty tmpfs for this node
            inner = f"mount -t tmpfs none {self.hide} && exec " + " ".join(command)
            command = ["unshare", "-m", "--propagation", "private", "sh", "-c", inner]
        out = open(self.base / log, "ab")  # noqa: SIM115 - the process writes it until stopped
        proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            self.kill(proc)


def _wait_port(port: int, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise SystemExit(f"nothing listens on port {port} after {seconds:g} s")


def _nodes(address: str, env: dict[str, str]) -> list[tuple[str, float]]:
    code = (
        f"import ray, json; ray.init(address={address!r}, log_to_driver=False); "
        "print(json.dumps([(n['NodeID'], n['Resources'].get('CPU', 0)) for n in ray.nodes() if n['Alive']]))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd="/", capture_output=True, text=True)
    return (
        [tuple(n) for n in json.loads(done.stdout.strip().splitlines()[-1])] if done.returncode == 0 else []
    )


def _driver_files(driver: Path, n: int) -> None:
    from PIL import Image

    (driver / "data" / "img").mkdir(parents=True)
    rows = [{"id": f"q{i}", "question": f"Вопрос {i} [{i % 3}]", "answer": str(i % 3)} for i in range(n)]
    _write_jsonl(driver / "data" / "qa.jsonl", rows)
    pics = []
    for i in range(6):
        Image.new("RGB", (8, 8), (40 * i, 0, 0)).save(driver / "data" / "img" / f"{i}.png")
        pics.append(
            {"id": f"p{i}", "question": f"<image> какой? [{i}]", "answer": str(i), "image": f"img/{i}.png"}
        )
    _write_jsonl(driver / "data" / "pics.jsonl", pics)
    (driver / "pics.yaml").write_text(MEDIA_TASK, encoding="utf-8")


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _records(out: Path) -> list[dict[str, Any]]:
    lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _record_set(out: Path) -> set[str]:
    return {
        json.dumps({k: v for k, v in r.items() if k != "latency_s"}, sort_keys=True) for r in _records(out)
    }


def _cache_rows(out: Path) -> int:
    db = sqlite3.connect(out / "cache.sqlite")
    try:
        return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
    finally:
        db.close()


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _requests(url: str) -> int:
    with urllib.request.urlopen(url.removesuffix("/v1") + "/stats") as answer:
        return int(json.load(answer)["requests"])


def _check(name: str, ok: bool, detail: Any = "") -> bool:
    print(f"{'PASS' if ok else 'FAIL'} {name} {detail}".rstrip(), flush=True)
    return ok


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, float, str]:
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    return done.returncode, time.monotonic() - start, done.stderr


def _lines(paths: Any) -> int:
    total = 0
    for path in paths:
        with contextlib.suppress(OSError):
            total += path.read_bytes().count(b"\n")
    return total


def _node_has(out: Path, node_id: str, records: int) -> bool:
    """Whether a shard placed on ``node_id`` has ``records`` records in the driver's copy."""
    for attempt in out.glob("shards/*/attempt.json"):
        try:
            there = json.loads(attempt.read_text())["node_id"] == node_id
        except (OSError, ValueError, KeyError):
            continue
        if there and _lines([attempt.parent / "samples.jsonl"]) >= records:
            return True
    return False


def _kill_when(
    cluster: Cluster, cmd: list[str], driver: Path, ready: Any, victim: subprocess.Popen[bytes] | None
) -> tuple[int, float, float | None, str]:
    """Run ``cmd``; SIGKILL ``victim`` (a node; ``None``: the driver itself) once ``ready()`` holds."""
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        cwd=driver,
        env=cluster.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    killed = None
    while proc.poll() is None and killed is None:
        if ready():
            cluster.kill(victim if victim is not None else proc)  # type: ignore[arg-type]
            killed = time.monotonic() - start
        time.sleep(0.05)
    _, err = proc.communicate(timeout=600)
    return proc.returncode, time.monotonic() - start, killed, err


def _after_the_kill(shards: dict[str, Any], *, killed_at: float) -> None:
    """When the lost node's shards started again, and when the last shard ended, after the kill."""
    import datetime as dt

    def since(shard: dict[str, Any]) -> float:
        return dt.datetime.fromisoformat(shard["started"]).timestamp() - killed_at

    again = sorted(round(since(s), 1) for s in shards.values() if s["attempts"] > 1)
    last = max(since(s) + s["wall_s"] for s in shards.values())
    print(
        f"B: the lost node's shards started again {again} s after the kill; the last shard ended {last:.1f} s"
    )


def _join(cluster: Cluster, address: str, cpus: float, folder: str) -> tuple[str, subprocess.Popen[bytes]]:
    """Start a node of ``cpus`` CPUs (its own working directory and TMPDIR) and wait until it joined."""
    base = cluster.base
    before = {node for node, _ in _nodes(address, cluster.env)}
    join = [str(BIN / "ray"), "start", f"--address={address}", f"--num-cpus={cpus:g}", *_node_ports()]
    (base / f"tmp-{folder}").mkdir(exist_ok=True)
    proc = cluster.start(join, base / folder, f"{folder}.log", worker=True, tmpdir=base / f"tmp-{folder}")
    for _ in range(60):
        time.sleep(3)
        found = {node for node, cpu in _nodes(address, cluster.env) if cpu == cpus} - before
        if found:
            return found.pop(), proc
    raise SystemExit(f"{folder} never joined the cluster (see {base / folder}.log)")


def _same_run(name: str, driver: Path, out: str, *, n: int, head: str) -> bool:
    """Exit aside: every sample once, a local run's records, the model's gate on the head."""
    ids = [r["sample_id"] for r in _records(driver / out)]
    ok = _check(
        f"{name}: every sample exactly once", sorted(ids) == sorted(set(ids)) and len(ids) == n, len(ids)
    )
    ok &= _check(f"{name}: a local run's records", _record_set(driver / out) == _record_set(driver / "local"))
    block = json.loads((driver / out / "manifest.json").read_text())["executor"]
    gate = (block.get("gate") or {}).get("node")
    ok &= _check(f"{name}: the model's gate ran on the head (the driver's node)", gate == head, gate)
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=600)
    ap.add_argument("--latency-ms", type=float, default=50)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--shard-size", type=int, default=25)
    ap.add_argument("--workers", type=int, default=3, help="Ray workers (at least 2: the gate path)")
    ap.add_argument("--hide-driver", action="store_true", help="worker nodes cannot see the driver's folder")
    args = ap.parse_args()
    if args.workers < 2:
        raise SystemExit("--workers must be at least 2: one worker never uses the endpoint's gate")
    base = Path(tempfile.mkdtemp(prefix="rcc"))  # short: Ray's socket paths must fit in 107 bytes
    for name in ("t", "head", "node2", "node3", "driver"):
        (base / name).mkdir()
    driver = base / "driver"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    env.update(PYTHONPATH=os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p))
    env["RAY_AUTH_MODE"] = "disabled"  # a throwaway cluster; never touch the machine's ~/.ray/auth_token
    cluster = Cluster(base, env, hide=driver if args.hide_driver else None)
    ok = True
    try:
        _driver_files(driver, args.samples)
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "omnieval.testing.fake_openai",
                "--latency-ms",
                str(args.latency_ms),
                "--answer-pattern",
                r"\[(\d+)\]",
            ],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        cluster.procs.append(server)  # type: ignore[arg-type]
        url = server.stdout.readline().strip() if server.stdout else ""
        gcs = _port()
        ray = str(BIN / "ray")
        head_cmd = [ray, "start", "--head", f"--port={gcs}", "--num-cpus=0", "--include-dashboard=false"]
        (base / "tmp-head").mkdir()
        cluster.start(
            [*head_cmd, f"--temp-dir={base / 't'}", *_node_ports()],
            base / "head",
            "head.log",
            tmpdir=base / "tmp-head",
        )
        _wait_port(gcs, 90)
        address = f"127.0.0.1:{gcs}"
        head = next(node for node, cpu in _nodes(address, env) if cpu == 0)
        _join(cluster, address, 1.0, "node2")  # one at a time: a loaded machine times out two
        node3 = _join(cluster, address, 2.0, "node3")
        if args.hide_driver:
            seen = subprocess.run(
                ["nsenter", "-t", str(node3[1].pid), "-m", "ls", "-A", str(driver)],
                capture_output=True,
                text=True,
            ).stdout.split()
            ok &= _check("the worker nodes see an empty driver folder", seen == [], seen)
        omnieval = [
            str(BIN / "omnieval"),
            "run",
            "--tasks",
            "jsonl:data/qa.jsonl,pics.yaml",
            "-m",
            "openai/fake",
        ]
        common = [*omnieval, "--base-url", url, "--concurrency", str(args.concurrency), "--quiet"]
        on_ray = ["--executor", "ray", "--ray-address", address, "--shard-size", str(args.shard_size)]
        on_ray += ["--workers", str(args.workers)]
        rc, wall, err = _run([*common, "--output", "local"], driver, env)
        print(f"local run: exit {rc}, {wall:.1f} s", flush=True)
        n = args.samples + 6
        asked = _requests(url)
        rc, wall, err = _run([*common, "--output", "outA", *on_ray], driver, env)
        ok &= _check("A: exit 0", rc == 0, f"({wall:.1f} s) {err[-1500:] if rc else ''}")
        ok &= _same_run("A", driver, "outA", n=n, head=head)
        ran = json.loads((driver / "outA" / "manifest.json").read_text())["executor"]
        print(f"A: {ran['workers']} workers, {len(ran['shards'])} shards, {_requests(url) - asked} requests")
        ok &= _check(f"A: {args.workers} workers", ran["workers"] == args.workers, ran["workers"])
        for folder in ("head", "node2", "node3"):
            ok &= _check(f"A: nothing in {folder}'s working directory", not _files(base / folder))
        ok &= _check("A: every response in the driver's cache.sqlite", _cache_rows(driver / "outA") == n)
        (driver / "outA" / "samples.jsonl").unlink()
        shutil.rmtree(driver / "outA" / "shards")
        asked = _requests(url)
        rc, wall, err = _run([*common, "--output", "outA", *on_ray], driver, env)
        again = _records(driver / "outA")
        ok &= _check(
            "A again (records deleted): exit 0, no request",
            rc == 0 and _requests(url) == asked,
            f"({wall:.1f} s, {_requests(url) - asked} requests)",
        )
        ok &= _check("A again: every record cached", len(again) == n and all(r["cached"] for r in again))
        moments = {
            "B1 (a shard placed there, no record yet)": lambda out, node: _node_has(out, node, 0),
            "B2 (2 records of a shard there)": lambda out, node: _node_has(out, node, 2),
            "B3 (half the run's records in)": lambda out, node: (
                _lines(out.glob("shards/*/samples.jsonl")) >= n // 2
            ),
        }
        for i, (name, moment) in enumerate(moments.items()):
            if node3[1].poll() is not None:  # killed by the last scenario: a fresh node joins
                node3 = _join(cluster, address, 2.0, "node3")
            out = driver / f"outB{i}"
            asked = _requests(url)
            node_id, proc = node3
            rc, wall, killed, err = _kill_when(
                cluster,
                [*common, "--output", out.name, *on_ray],
                driver,
                functools.partial(moment, out, node_id),
                proc,
            )
            sent = _requests(url) - asked
            print(
                f"{name}: node killed {killed:.1f} s in" if killed else f"{name}: the node was never killed"
            )
            ok &= _check(f"{name}: exit 0", rc == 0 and killed is not None, f"({wall:.1f} s) {err[-1500:]}")
            ok &= _same_run(name, driver, out.name, n=n, head=head)
            print(f"{name}: {sent - n} requests sent again (of {sent})")
            block = json.loads((out / "manifest.json").read_text())["executor"]
            print(f"{name}: lost {block.get('lost')}")
            _after_the_kill(block["shards"], killed_at=time.time() - wall + (killed or 0))
        asked = _requests(url)
        out = driver / "outD"
        cmd = [*common, "--output", out.name, *on_ray]
        rc, wall, killed, err = _kill_when(
            cluster, cmd, driver, lambda: _lines(out.glob("shards/*/samples.jsonl")) >= n // 2, None
        )
        ok &= _check("D: the driver was killed mid-run", killed is not None and rc != 0, f"exit {rc}")
        rc, wall, err = _run(cmd, driver, env)
        ok &= _check(
            "D: the same command resumes: exit 0", rc == 0, f"({wall:.1f} s) {err[-1500:] if rc else ''}"
        )
        ok &= _same_run("D", driver, out.name, n=n, head=head)
        print(f"D: {_requests(url) - asked - n} requests sent again after the driver's kill")
    finally:
        cluster.stop()
        shutil.rmtree(base, ignore_errors=True)
    print("all passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
