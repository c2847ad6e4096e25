"""Per-shard set-up cost of ``--executor ray``: one worker running every shard of a large task.

A Ray worker runs each shard through the ordinary runner. What a shard costs beyond its own samples
(finding its samples in the task, checking their ids, the shard's manifest) is paid once per shard,
so a task cut into many shards must not pay a pass over the whole task for each of them. This script
runs the same task side by side, in one process and without Ray (the worker class is plain):

- the local executor (one pass over the task);
- shard by shard through one :class:`ShardWorker` that holds the task's selection in memory (the
  default: each shard runs over a view of its own samples);
- the same with the selection not held (``held_bytes=0``, what a task too big to hold gets, and
  what every task got before): each shard's runner streams the whole task to find its samples.

``baseline/oracle`` answers instantly, so the differences are the executors' own costs. Each mode
runs ``--repeat`` times; the best wall time is printed (the machine may be shared).
Usage: ``python benchmarks/shard_setup.py [--samples 20000] [--shard-size 250] [--repeat 2]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path

from omnieval.executors.shards import plan_shards
from omnieval.executors.views import HELD_BYTES, ShardViews
from omnieval.executors.worker import ShardWorker
from omnieval.runner import RunConfig, resolve_tasks, run


def _task(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            row = {"id": f"q{i}", "question": f"Вопрос {i}: сколько будет {i} + 1?", "answer": str(i + 1)}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def _local(config: RunConfig) -> float:
    start = time.perf_counter()
    run(config)
    return time.perf_counter() - start


def _sharded(config: RunConfig, shard_size: int, *, held_bytes: int) -> tuple[float, int]:
    """Wall seconds of every shard through one worker, and the number of shards."""
    plans, _ = plan_shards(resolve_tasks(config.tasks), config, shard_size=shard_size, workers=1)
    worker = ShardWorker(config, owner="bench")
    worker.views = ShardViews(config, held_bytes=held_bytes)

    async def run_all() -> None:
        for plan in plans:
            report = await worker.run_shard(plan, [])
            assert len(report["lines"]) == plan.size, report["key"]
        await worker.close()

    start = time.perf_counter()
    asyncio.run(run_all())
    return time.perf_counter() - start, len(plans)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--shard-size", type=int, default=250)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="omnieval-shard-bench-"))
    walls: dict[str, list[float]] = {"local": [], "held": [], "streamed": []}
    shards = 0
    try:
        task = _task(root / "setup.jsonl", args.samples)
        for attempt in range(args.repeat):

            def config(name: str, attempt: int = attempt) -> RunConfig:
                return RunConfig(
                    tasks=(f"jsonl:{task}",),
                    model="baseline/oracle",
                    output=root / f"{name}{attempt}",
                    quiet=True,
                    use_cache=False,
                )

            walls["local"].append(_local(config("local")))
            wall, shards = _sharded(config("held"), args.shard_size, held_bytes=HELD_BYTES)
            walls["held"].append(wall)
            walls["streamed"].append(_sharded(config("streamed"), args.shard_size, held_bytes=0)[0])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    local, held, streamed = (min(walls[k]) for k in ("local", "held", "streamed"))
    print(
        f"{args.samples} samples in {shards} shards of {args.shard_size} (baseline/oracle, no Ray; best of "
        f"{args.repeat})"
    )
    print(f"local executor, one pass              wall {local:7.2f} s")
    for name, wall in (
        ("shards, selection held (default)", held),
        ("shards, task streamed per shard", streamed),
    ):
        print(
            f"{name:37s} wall {wall:7.2f} s  set-up per shard {(wall - local) / shards * 1000:7.1f} ms"
            f"  ratio to local {wall / local:.2f}"
        )
    print(f"streamed / held = {streamed / held:.2f}")


if __name__ == "__main__":
    main()
