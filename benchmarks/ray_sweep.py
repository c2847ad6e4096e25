"""``omnieval sweep`` on Ray: several models at once against one model at a time, side by side.

N API models, each behind its own fake OpenAI server (its own process, fixed latency, its own
``--concurrency`` limit), are swept twice in one invocation on one local Ray: with
``--models-at-once 1`` (each model over the whole cluster, one after another) and with the default
(all at once, the workers split among them). Each endpoint's limit bounds one model at
``samples × latency / concurrency``, so one at a time costs about N times that and all at once
about once that: the ratio shows what running models concurrently buys when each is bounded by its
own endpoint. Ray's start-up is paid once, before both sweeps.

Usage: ``python benchmarks/ray_sweep.py [--models 4] [--samples 300] [--latency-ms 100] [--concurrency 8]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_overhead import fake_server, make_task  # the same server process as the harness benchmark

from omnieval.cli.app import app


def _sweep(out: Path, config: Path, *extra: str) -> float:
    args = [
        "sweep",
        "--config",
        str(config),
        "--executor",
        "ray",
        "--quiet",
        "--json",
        "-o",
        str(out),
        *extra,
    ]
    start = time.perf_counter()
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):  # the board, printed as JSON
        app(args, standalone_mode=False)
    wall = time.perf_counter() - start
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert all(r["status"] == "finished" and r["errors"] == 0 for r in board["rows"]), board["rows"]
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=int, default=4)
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--latency-ms", type=float, default=100.0)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--cpus", type=int, default=4, help="CPUs of the local Ray (worker slots)")
    args = ap.parse_args()
    import ray

    root = Path(tempfile.mkdtemp(prefix="omnieval-sweep-bench-"))
    try:
        task = make_task(root / "sweep.jsonl", args.samples)
        with contextlib.ExitStack() as stack:
            urls = [stack.enter_context(fake_server(args.latency_ms)) for _ in range(args.models)]
            config = root / "sweep.yaml"
            models = ", ".join(
                f"{{model: openai/fake, name: m{i}, base_url: '{url}'}}" for i, url in enumerate(urls)
            )
            config.write_text(f"models: [{models}]\ntasks: ['jsonl:{task}']\n", encoding="utf-8")
            start = time.perf_counter()
            ray.init(address="local", num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
            ray_init = time.perf_counter() - start
            concurrency = ("--concurrency", str(args.concurrency))
            one_by_one = _sweep(root / "one", config, "--models-at-once", "1", *concurrency)
            at_once = _sweep(root / "all", config, *concurrency)
            ray.shutdown()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    per_model = args.samples * args.latency_ms / 1000 / args.concurrency
    print(
        f"{args.models} models × {args.samples} samples, each model on its own endpoint (latency "
        f"{args.latency_ms:g} ms, "
        f"concurrency {args.concurrency}); local Ray with {args.cpus} CPUs on {os.cpu_count()} cores"
    )
    print(f"ray.init (once)            wall {ray_init:6.2f} s")
    print(f"one model at a time        wall {one_by_one:6.2f} s  (ideal {args.models * per_model:.2f} s)")
    print(f"all models at once         wall {at_once:6.2f} s  (ideal {per_model:.2f} s)")
    print(f"speed-up at once / one by one: {one_by_one / at_once:.2f} × (ideal {args.models} ×)")


if __name__ == "__main__":
    main()
