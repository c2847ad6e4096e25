"""Ray executor: wall time with 1, 2 and 4 local workers, and its overhead against the local executor.

Against the fake OpenAI server (its own process) with a fixed latency, the same run is made with
``--executor local`` and with ``--executor ray`` on 1, 2 and 4 workers, side by side in one
invocation. Each ray run pays for starting its worker actors; Ray's own start-up (``ray.init``, once
per process, like a cluster that is already up) is printed apart. The endpoint limit
(``--concurrency``) is global on Ray, so with the server the bottleneck, more workers cannot go
faster than the limit allows: that is the point of the limit. With ``--concurrency`` high enough
that one process's CPU is the bottleneck, workers add throughput until the server saturates.

Goal (issue 15): ray with 1 worker within 1.3 × the local executor on one machine.
Goal (issue 23, ``--nodes 2``): on a cluster of two nodes on this machine (``ray.cluster_utils.Cluster``,
one CPU each, started before the timing, as a cluster that is already up), ray within 1.2 × local at
3,000 samples, 50 ms, concurrency 32; joining the running cluster (``ray.init(address)``) ≤ 1 s.
Usage: ``python benchmarks/ray_scaling.py [--samples 3000] [--latency-ms 100] [--concurrency 32]
[--shard-size N] [--nodes 2 --workers 2] [--cpu]`` (many small shards show the per-shard set-up cost;
``--cpu``: each run's CPU seconds per process kind, from ``/proc``, and the load average around it).

Goal (issue 35, ``--ray-start 2``): on a real ``ray start`` cluster on this machine (a head with no CPU, the
driver's node, and two worker nodes of one CPU each, each with its own TMPDIR, all up before the timing),
Ray's own fixed cost ≤ 1.0 s and its wall time ≤ 1.2 × a local run's (the same ``--concurrency``), local and
Ray runs alternating (``--repeats``) against a fresh fake server each. Every run is timed whole, as a user
runs it: joining the cluster (``ray.init(address)``) and leaving it are inside. Printed per run: the first
request at the server (seconds after the run began), the work (the server's first to last request) and the
fixed cost (wall minus work); per pair, the ratio of wall times and Ray's own fixed cost (the Ray run's
fixed cost minus the local run's: reading the task and writing results and report are both runs')::

    python benchmarks/ray_scaling.py --ray-start 2 --samples 3000 --latency-ms 50 --concurrency 32 --repeats 3

``--profile`` (with ``--ray-start``): after each run, the requests in flight at the server (the mean at
arrivals per half second, from the fake server's ``/arrivals``), the gate's grants, and each Ray shard's
start and end on the server's clock; ``--cpu`` there: CPU seconds per process kind (the ``ray start``
processes are this process's children).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_overhead import fake_server  # the same server process as the harness benchmark

from omnieval.backends import BackendOptions
from omnieval.executors import ExecutorOptions
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config

GOAL = 1.3
NODES_GOAL = 1.2
JOIN_GOAL_S = 1.0
FIXED_GOAL_S = 1.0


def _task(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"q{i}", "question": f"Q{i} [{i % 5}]", "answer": str(i % 5)}) + "\n")
    return path


def _timed(
    config: RunConfig, executor: ExecutorOptions | None, *, cpu_per_process: bool = False
) -> tuple[float, float]:
    """Wall seconds, and the run's own CPU seconds (driver only: workers are other processes)."""
    sampler = _ProcessCpu() if cpu_per_process else None
    load = os.getloadavg()[0]
    cpu, wall, began = time.process_time(), time.perf_counter(), time.time()
    _, results = evaluate_config(config, executor=executor)
    assert results.states["ok"] == results.tasks["scaling"].n, results.states
    seconds = time.perf_counter() - wall
    if executor is not None:
        print(_where_the_time_went(config.output, began=began, wall=seconds), file=sys.stderr)
    if sampler is not None:
        print(f"  {config.output.name}: load {load:.1f} → {os.getloadavg()[0]:.1f}; {sampler.stop()}")
    return seconds, time.process_time() - cpu


class _ProcessCpu:
    """CPU seconds (user + system) per kind of process in this process's tree (driver, fake server, Ray's
    raylets and GCS, worker actors, the gate) while a run goes, read from ``/proc`` every 0.1 s (Linux)."""

    def __init__(self) -> None:
        self.first: dict[int, tuple[str, float]] = {}
        self.last: dict[int, tuple[str, float]] = {}
        self.done = threading.Event()
        self._sample()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.done.wait(0.1):
            self._sample()

    def _sample(self) -> None:
        tree, ticks = {os.getpid()}, os.sysconf("SC_CLK_TCK")
        procs: dict[int, tuple[int, str, float]] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except (OSError, ValueError, IndexError):
                continue
            procs[int(entry.name)] = (int(stat[1]), cmd, (int(stat[11]) + int(stat[12])) / ticks)
        for _ in range(6):  # descendants, a few generations deep (driver → raylet → worker)
            tree |= {pid for pid, (parent, _, _) in procs.items() if parent in tree}
        for pid in tree & procs.keys():
            _, cmd, seconds = procs[pid]
            kind = _kind(cmd, driver=pid == os.getpid())
            self.first.setdefault(pid, (kind, seconds))
            if pid in self.last and kind in ("idle worker", "other ray"):  # a worker process is named
                kind = self.last[pid][0]  # after its actor once it has one, and keeps that name here
            self.last[pid] = (kind, seconds)

    def stop(self) -> str:
        self.done.set()
        self.thread.join()
        self._sample()
        per_kind: dict[str, list[float]] = {}
        for pid, (kind, seconds) in self.last.items():
            used = seconds - self.first[pid][1]
            if used >= 0.01:
                per_kind.setdefault(kind, []).append(used)
        return "CPU s: " + ", ".join(
            f"{kind} {' + '.join(f'{v:.2f}' for v in sorted(values, reverse=True))}"
            for kind, values in sorted(per_kind.items())
        )


def _kind(cmd: str, *, driver: bool) -> str:
    if driver:
        return "driver"
    for needle, kind in (
        ("ShardWorker", "worker"),
        ("EndpointGate", "gate"),
        ("ProgressBoard", "progress board"),
        ("ray::IDLE", "idle worker"),
        ("fake_openai", "server"),
        ("raylet", "raylet"),
        ("gcs_server", "gcs"),
    ):
        if needle in cmd:
            return kind
    return "other ray"


def _where_the_time_went(out: Path, *, began: float, wall: float) -> str:
    """From the manifest's shards: until the first shard started (planning, actor start-up), the shards'
    own wall time per worker process, and what came after the last one ended (merge, stopping workers)."""
    import datetime as dt

    shards = json.loads((out / "manifest.json").read_text())["executor"]["shards"].values()
    starts = [dt.datetime.fromisoformat(s["started"]).timestamp() for s in shards]
    ends = [t + s["wall_s"] for t, s in zip(starts, shards, strict=True)]
    per_worker: dict[int, float] = {}
    for s in shards:
        per_worker[s["pid"]] = per_worker.get(s["pid"], 0.0) + s["wall_s"]
    busy = ", ".join(f"{v:.2f}" for v in per_worker.values())
    return (
        f"  {len(starts)} shard(s): first started after {min(starts) - began:.2f} s; shard wall per worker "
        f"{busy} s; after the last shard {began + wall - max(ends):.2f} s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=3000)
    ap.add_argument("--latency-ms", type=float, default=100.0)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument(
        "--shard-size", type=int, default=None, help="samples per shard (default: the executor's)"
    )
    ap.add_argument(
        "--nodes", type=int, default=0, help="run on a cluster of N nodes started here (0: one local Ray)"
    )
    ap.add_argument("--cpu", action="store_true", help="each run's CPU seconds per process kind (Linux)")
    ap.add_argument(
        "--ray-start",
        type=int,
        default=0,
        help="compare local with a `ray start` cluster: a 0-CPU head and N 1-CPU worker nodes",
    )
    ap.add_argument("--repeats", type=int, default=1, help="--ray-start: local and Ray runs, alternating")
    ap.add_argument(
        "--profile", action="store_true", help="--ray-start: requests in flight over time; Ray's shards"
    )
    args = ap.parse_args()
    if args.ray_start:
        _started_cluster_comparison(args)
        return
    import ray

    cluster = _cluster(args.nodes) if args.nodes else None

    root = Path(tempfile.mkdtemp(prefix="omnieval-ray-bench-"))
    try:
        task = _task(root / "scaling.jsonl", args.samples)
        with fake_server(args.latency_ms) as url:

            def config(name: str) -> RunConfig:
                options = BackendOptions(base_url=url, concurrency=args.concurrency, timeout_s=60)
                return RunConfig(
                    tasks=(f"jsonl:{task}",),
                    model="openai/fake",
                    output=root / name,
                    backend=options,
                    quiet=True,
                    use_cache=False,
                )

            ideal = args.samples * args.latency_ms / 1000 / args.concurrency
            local, local_cpu = _timed(config("local"), None, cpu_per_process=args.cpu)
            counts = [int(w) for w in args.workers.split(",")]
            start = time.perf_counter()
            if cluster is not None:
                ray.init(address=cluster.address, log_to_driver=False)  # joining a cluster that is up
            else:
                ray.init(
                    address="local",
                    num_cpus=max(max(counts), os.cpu_count() or 1),
                    include_dashboard=False,
                    log_to_driver=False,
                )
            ray_init = time.perf_counter() - start
            rows = [
                (
                    w,
                    *_timed(
                        config(f"ray{w}"),
                        ExecutorOptions(kind="ray", workers=w, shard_size=args.shard_size),
                        cpu_per_process=args.cpu,
                    ),
                )
                for w in counts
            ]
            ray.shutdown()
    finally:
        shutil.rmtree(root, ignore_errors=True)
        if cluster is not None:
            cluster.shutdown()
    print(
        f"{args.samples} samples, server latency {args.latency_ms:g} ms, concurrency {args.concurrency} per "
        "endpoint; "
        f"ideal {ideal:.2f} s; {os.cpu_count()} cores"
    )
    print(
        f"local executor      wall {local:6.2f} s  ({args.samples / local:7.1f} samples/s, driver CPU "
        f"{local_cpu:.2f} s)"
    )
    print(
        f"ray.init (once)     wall {ray_init:6.2f} s"
        + (
            f"  (joining a running {args.nodes}-node cluster; goal ≤ {JOIN_GOAL_S:g} s "
            f"{'OK' if ray_init <= JOIN_GOAL_S else 'over'})"
            if args.nodes
            else ""
        )
    )
    for workers, wall, cpu in rows:
        print(
            f"ray, {workers} worker(s)    wall {wall:6.2f} s  ({args.samples / wall:7.1f} samples/s, driver "
            f"CPU {cpu:.2f} s)"
            f"  ratio to local {wall / local:.2f}"
        )
    one = next((wall for w, wall, _ in rows if w == 1), None)
    if args.nodes:
        best = min(wall for _, wall, _ in rows)
        verdict = "OK" if best / local <= NODES_GOAL else "over"
        print(
            f"goal: ray ({args.nodes} nodes, best) / local = {best / local:.2f} (target ≤ {NODES_GOAL}) "
            f"{verdict}"
        )
    elif one is not None:
        verdict = "OK" if one / local <= GOAL else "over"
        print(f"goal: ray (1 worker) / local = {one / local:.2f} (target ≤ {GOAL}) {verdict}")


def _cluster(nodes: int) -> Any:
    """``nodes`` Ray nodes of one CPU each on this machine, up before anything is timed."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    return cluster


def _started_cluster_comparison(args: argparse.Namespace) -> None:
    """Issue 35's case: local against a `ray start` cluster (see the module's docstring), side by side."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from ray_cluster_check import Cluster, _join, _node_ports, _nodes, _port, _wait_port

    os.environ["RAY_AUTH_MODE"] = "disabled"  # a throwaway cluster; never the machine's ~/.ray/auth_token
    base = Path(tempfile.mkdtemp(prefix="rsb"))  # short: Ray's socket paths must fit in 107 bytes
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(Path(__file__).resolve().parents[1] / "src"), os.environ.get("PYTHONPATH")) if p
    )
    cluster = Cluster(base, env, hide=None)
    rows: list[tuple[str, dict[str, float]]] = []
    try:
        for name in ("t", "head", "tmp-head"):
            (base / name).mkdir()
        gcs = _port()
        head = [str(Path(sys.executable).parent / "ray"), "start", "--head", f"--port={gcs}", "--num-cpus=0"]
        head += ["--include-dashboard=false", f"--temp-dir={base / 't'}", *_node_ports()]
        cluster.start(head, base / "head", "head.log", tmpdir=base / "tmp-head")
        _wait_port(gcs, 90)
        address = f"127.0.0.1:{gcs}"
        for n in range(args.ray_start):
            (base / f"w{n}").mkdir()
            _join(cluster, address, 1.0, f"w{n}")
        print(f"cluster up: {len(_nodes(address, env))} nodes at {address}", file=sys.stderr)
        task = _task(base / "scaling.jsonl", args.samples)
        executor = ExecutorOptions(
            kind="ray", ray_address=address, workers=args.ray_start, shard_size=args.shard_size
        )
        for repeat in range(args.repeats):
            for kind, chosen in (("local", None), ("ray", executor)):
                rows.append((kind, _run_against_a_fresh_server(args, task, base / f"{kind}{repeat}", chosen)))
    finally:
        cluster.stop()
        shutil.rmtree(base, ignore_errors=True)
    _print_comparison(args, rows)


def _run_against_a_fresh_server(
    args: argparse.Namespace, task: Path, out: Path, executor: ExecutorOptions | None
) -> dict[str, float]:
    """One whole run: wall seconds, the server's first request after the start, the work (first to last
    request at the server) and the fixed cost (wall minus work); the load average as it began."""
    import urllib.request

    with fake_server(args.latency_ms) as url:
        options = BackendOptions(base_url=url, concurrency=args.concurrency, timeout_s=60)
        config = RunConfig(
            tasks=(f"jsonl:{task}",),
            model="openai/fake",
            output=out,
            backend=options,
            quiet=True,
            use_cache=False,
        )
        load = os.getloadavg()[0]
        sampler = _ProcessCpu() if args.cpu else None
        began = time.monotonic()
        _, results = evaluate_config(config, executor=executor)
        wall = time.monotonic() - began
        if sampler is not None:
            print(f"  {out.name}: {sampler.stop()}", file=sys.stderr)
        assert results.states["ok"] == args.samples, results.states
        with urllib.request.urlopen(url.removesuffix("/v1") + "/stats") as answer:
            stats = json.load(answer)
        if args.profile:
            with urllib.request.urlopen(url.removesuffix("/v1") + "/arrivals") as answer:
                print(_profile(out, json.load(answer), ray=executor is not None), file=sys.stderr)
    assert stats["requests"] == args.samples, stats["requests"]  # each sample asked once
    work = stats["last_arrival"] - stats["first_arrival"]
    return {
        "wall": wall,
        "first": stats["first_arrival"] - began,
        "work": work,
        "fixed": wall - work,
        "load": load,
    }


def _profile(out: Path, arrivals: list[list[float]], *, ray: bool) -> str:
    """Where the work span went: the requests in flight at the server (the mean at arrivals, per half
    second from the first request) and, for a Ray run, each shard's start and end on the same clock."""
    import datetime as dt

    first = arrivals[0][0]
    windows: dict[int, list[float]] = {}
    for t, in_flight in arrivals:
        windows.setdefault(int((t - first) / 0.5), []).append(in_flight)
    lines = [
        f"  {out.name}: in flight per 0.5 s: "
        + " ".join(f"{sum(v) / len(v):.0f}" for _, v in sorted(windows.items()))
    ]
    if ray:
        block = json.loads((out / "manifest.json").read_text())["executor"]
        gate = block.get("gate") or {}
        lines.append(f"    gate: peak {gate.get('peak')} slots, {gate.get('granted')} granted in all")
        shards = block["shards"].values()
        offset = time.time() - time.monotonic()  # the manifest's wall clock onto the server's monotonic one
        for s in sorted(shards, key=lambda s: s["started"]):
            start = dt.datetime.fromisoformat(s["started"]).timestamp() - offset - first
            lines.append(f"    shard pid {s['pid']}: {start:5.2f} → {start + s['wall_s']:5.2f} s")
    return "\n".join(lines)


def _print_comparison(args: argparse.Namespace, rows: list[tuple[str, dict[str, float]]]) -> None:
    print(
        f"{args.samples} samples, server latency {args.latency_ms:g} ms, concurrency {args.concurrency}; "
        f"local vs Ray on a `ray start` cluster (0-CPU head + {args.ray_start} 1-CPU nodes, "
        f"--workers {args.ray_start}); {os.cpu_count()} cores"
    )
    for kind, r in rows:
        print(
            f"{kind:5s} wall {r['wall']:6.2f} s  first request {r['first']:5.2f} s  work {r['work']:6.2f} s  "
            f"fixed {r['fixed']:5.2f} s  (load {r['load']:.1f})"
        )
    local = [r for kind, r in rows if kind == "local"]
    ray = [r for kind, r in rows if kind == "ray"]
    for (i, lo), ra in zip(enumerate(local), ray, strict=True):
        ratio, extra = ra["wall"] / lo["wall"], ra["fixed"] - lo["fixed"]
        print(
            f"pair {i}: ray/local wall {ratio:.2f} "
            f"(goal ≤ {NODES_GOAL}: {'OK' if ratio <= NODES_GOAL else 'over'}); "
            f"Ray's own fixed cost (ray fixed − local fixed) {extra:.2f} s (goal ≤ {FIXED_GOAL_S:g} s: "
            f"{'OK' if extra <= FIXED_GOAL_S else 'over'}); first request {ra['first'] - lo['first']:+.2f} s"
        )
    pairs = sorted(zip(local, ray, strict=True), key=lambda pair: pair[1]["wall"] / pair[0]["wall"])
    lo, ra = pairs[len(pairs) // 2]
    print(
        f"median pair: ray/local wall {ra['wall'] / lo['wall']:.2f}, Ray's own fixed cost "
        f"{ra['fixed'] - lo['fixed']:.2f} s (local's fixed cost, wall − work: {lo['fixed']:.2f} s)"
    )


if __name__ == "__main__":
    main()
