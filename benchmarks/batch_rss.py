"""``--batch`` memory: peak RSS of ``omnieval run --batch`` over 100,000 requests (issue 24: ≤ 300 MB).

The fake OpenAI server (with its Batch API) runs in this process's background thread; the run is the
real CLI in a subprocess, whose peak RSS is read from ``getrusage(RUSAGE_CHILDREN)`` after it exits.
Prints the requests, batches, wall time, the child's peak RSS and the /chat/completions requests
(must be 0). ``--runner-only`` measures the runner alone (no ``results.json``, no report), to tell the batch
path's
memory from the end-of-run aggregation's. Usage:
``python benchmarks/batch_rss.py [--requests 100000] [--batch-size 5000] [--runner-only]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from omnieval.testing.fake_openai import FakeOpenAI


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=5000)
    parser.add_argument(
        "--runner-only", action="store_true", help="measure the runner alone, without results and report"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data, out = Path(tmp) / "t.jsonl", Path(tmp) / "out"
        with data.open("w", encoding="utf-8") as fh:
            for i in range(args.requests):
                fh.write(
                    json.dumps({"id": str(i), "question": f"вопрос номер [{i}]", "answer": str(i)}) + "\n"
                )
        with FakeOpenAI(answer_pattern=r"\[(\d+)\]").in_thread() as server:
            command = [
                sys.executable,
                "-m",
                "omnieval",
                "run",
                "--tasks",
                f"jsonl:{data}",
                "--model",
                "openai/fake",
                "--base-url",
                server.url,
                "--batch",
                "--batch-size-requests",
                str(args.batch_size),
                "--batch-poll",
                "0.2",
                "--output",
                str(out),
                "-q",
            ]
            if (
                args.runner_only
            ):  # the runner alone (no results.json, no report): where the batch path's memory goes
                code = (
                    "import sys; from pathlib import Path; from omnieval.runner import RunConfig, run; "
                    "run(RunConfig(tasks=(sys.argv[1],), model='openai/fake', output=Path(sys.argv[2]), "
                    "quiet=True, batch=True, "
                    "batch_size=int(sys.argv[4]), batch_poll_s=0.2, backend={'base_url': sys.argv[3]}))"
                )
                command = [
                    sys.executable,
                    "-c",
                    code,
                    f"jsonl:{data}",
                    str(out),
                    server.url,
                    str(args.batch_size),
                ]
            started = time.perf_counter()
            result = subprocess.run(command, env={**os.environ}, capture_output=True, text=True, check=False)
            wall = time.perf_counter() - started
            chat = server.stats()["requests"]
            batches = len(server.batches.created)
        rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        ok = sum(1 for line in (out / "samples.jsonl").open() if '"state":"ok"' in line)
    if result.returncode != 0:
        print(result.stderr[-2000:])
    print(
        f"requests: {args.requests:,}; batches: {batches}; ok records: {ok:,}; exit code {result.returncode}"
    )
    print(f"wall: {wall:.1f} s; /chat/completions requests: {chat}")
    print(f"peak RSS of the run: {rss_mb:.0f} MB (target ≤ 300 MB: {'PASS' if rss_mb <= 300 else 'FAIL'})")


if __name__ == "__main__":
    main()
