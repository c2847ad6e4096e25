"""Judged runs on Ray: the API judge's limit held across workers, and wall time against the local executor.

One judged run (a fake model server in its own process, a fake judge server with a fixed latency)
is made with ``--executor local`` and with ``--executor ray`` on 1, 2 and 4 workers, side by side.
The judge's ``--judge-concurrency`` is one limit for all workers, so the judge server never sees more
requests at once than that (printed: the peak the judge server saw), and the judge bounds the wall
time at ``samples × judge latency / judge concurrency`` whatever the number of workers.

Usage: ``python benchmarks/ray_judges.py [--samples 600] [--judge-latency-ms 50] [--judge-concurrency 8]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_overhead import fake_server  # the model's server, in its own process

from omnieval.backends import BackendOptions
from omnieval.executors import ExecutorOptions
from omnieval.runner import JudgeConfig, RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.testing.fake_openai import FakeOpenAI

TASK = """\
name: judged
source: {type: jsonl, path: judged.jsonl}
prompt: {template: "{{ input }}"}
metrics: [{name: exact_match, alias: em}]
judge: {key: js, protocol: direct, template: binary_equivalence, parser: judge_binary, scale: [0, 1]}
"""


def _task(root: Path, n: int) -> Path:
    with (root / "judged.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"q{i}", "question": f"Q{i} [{i % 5}]", "answer": str(i % 5)}) + "\n")
    (root / "judged.yaml").write_text(TASK, encoding="utf-8")
    return root / "judged.yaml"


def _timed(config: RunConfig, executor: ExecutorOptions | None, judge: FakeOpenAI) -> tuple[float, int]:
    """Wall seconds, and the most judge requests the judge server had in flight at once."""
    judge.arrivals.clear()
    wall = time.perf_counter()
    _, results = evaluate_config(config, executor=executor)
    assert results["states"]["ok"] == results["tasks"]["judged"]["n"], results["states"]
    return time.perf_counter() - wall, max((a.in_flight for a in judge.arrivals), default=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=600)
    ap.add_argument("--latency-ms", type=float, default=20.0, help="the model server's latency")
    ap.add_argument("--judge-latency-ms", type=float, default=50.0)
    ap.add_argument("--judge-concurrency", type=int, default=8)
    ap.add_argument("--workers", default="1,2,4")
    args = ap.parse_args()
    import ray

    root = Path(tempfile.mkdtemp(prefix="omnieval-ray-judges-"))
    try:
        task = _task(root, args.samples)
        with (
            fake_server(args.latency_ms) as url,
            FakeOpenAI(latency_ms=args.judge_latency_ms, default_answer="1").in_thread() as judge,
        ):
            judge_options = BackendOptions(
                base_url=judge.url, concurrency=args.judge_concurrency, timeout_s=60
            )

            def config(name: str) -> RunConfig:
                return RunConfig(
                    tasks=(str(task),),
                    model="openai/fake",
                    output=root / name,
                    quiet=True,
                    use_cache=False,
                    backend=BackendOptions(base_url=url, concurrency=32, timeout_s=60),
                    judge=JudgeConfig(model="openai/judge", backend=judge_options),
                )

            local = _timed(config("local"), None, judge)
            counts = [int(w) for w in args.workers.split(",")]
            ray.init(
                address="local",
                num_cpus=max(max(counts), os.cpu_count() or 1),
                include_dashboard=False,
                log_to_driver=False,
            )
            rows = [
                (w, *_timed(config(f"ray{w}"), ExecutorOptions(kind="ray", workers=w), judge)) for w in counts
            ]
            ray.shutdown()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    ideal = args.samples * args.judge_latency_ms / 1000 / args.judge_concurrency
    print(
        f"{args.samples} judged samples; judge latency {args.judge_latency_ms:g} ms, --judge-concurrency "
        f"{args.judge_concurrency}; judge-bound ideal {ideal:.2f} s; {os.cpu_count()} cores"
    )
    print(f"local executor      wall {local[0]:6.2f} s  judge peak in flight {local[1]}")
    for workers, wall, peak in rows:
        held = "held" if peak <= args.judge_concurrency else "EXCEEDED"
        print(
            f"ray, {workers} worker(s)    wall {wall:6.2f} s  judge peak in flight {peak} ({held})  ratio to "
            f"local {wall / local[0]:.2f}"
        )


if __name__ == "__main__":
    main()
