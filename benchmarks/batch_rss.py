"""``--batch`` memory: peak RSS of ``omnieval run --batch`` over 100,000 requests (issue 24: ≤ 300 MB).

Two runs of the same requests, side by side: the whole CLI (``omnieval run --batch``: requests, then
``results.json`` and ``report.html``) and the runner alone (no results, no report), to tell the batch
path's memory from the end-of-run aggregation and report's. The fake OpenAI server (with its Batch API)
runs in this process's background thread, a fresh one per run; each run is a subprocess whose own peak
RSS is read from ``os.wait4`` (the server's memory is not counted). Prints requests, batches, wall time,
peak RSS and the /chat/completions requests (must be 0) of each. Usage:
``python benchmarks/batch_rss.py [--requests 100000] [--batch-size 5000] [--only cli|runner]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from omnieval.testing.fake_openai import FakeOpenAI

RUNNER = (
    "import sys; from pathlib import Path; from omnieval.runner import RunConfig, run; "
    "run(RunConfig(tasks=(sys.argv[1],), model='openai/fake', output=Path(sys.argv[2]), "
    "quiet=True, batch=True, batch_api_group_size=int(sys.argv[4]), batch_poll_s=0.2, "
    "backend={'base_url': sys.argv[3]}))"
)


def _command(kind: str, data: Path, out: Path, url: str, batch_size: int) -> list[str]:
    if kind == "runner":  # the runner alone (no results.json, no report): where the batch path's memory goes
        return [sys.executable, "-c", RUNNER, f"jsonl:{data}", str(out), url, str(batch_size)]
    return [
        *(sys.executable, "-m", "omnieval", "run", "--tasks", f"jsonl:{data}", "--model", "openai/fake"),
        *("--base-url", url, "--batch-api", "--batch-api-group-size", str(batch_size)),
        *("--batch-api-poll", "0.2"),
        *("--output", str(out), "-q"),
    ]


def _measure(kind: str, data: Path, out: Path, batch_size: int) -> dict[str, object]:
    """One run as a child process: its exit code, wall time, own peak RSS (MB) and the server's counts."""
    with FakeOpenAI(answer_pattern=r"\[(\d+)\]").in_thread() as server:
        command = _command(kind, data, out, server.url, batch_size)
        started = time.perf_counter()
        with tempfile.TemporaryFile() as err:
            child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            err.seek(0)
            stderr = err.read().decode(errors="replace")
        wall = time.perf_counter() - started
        chat, batches = server.stats()["requests"], len(server.batches.created)
    ok = sum(1 for line in (out / "samples.jsonl").open() if '"state":"ok"' in line)
    if child.returncode != 0:
        print(stderr[-2000:])
    return {
        "rc": child.returncode,
        "wall": wall,
        "rss_mb": usage.ru_maxrss / 1024,
        "chat": chat,
        "batches": batches,
        "ok": ok,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=5000)
    parser.add_argument("--only", choices=("cli", "runner"), help="measure one of the two runs")
    args = parser.parse_args()
    kinds = [args.only] if args.only else ["cli", "runner"]
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "t.jsonl"
        with data.open("w", encoding="utf-8") as fh:
            for i in range(args.requests):
                fh.write(
                    json.dumps({"id": str(i), "question": f"вопрос номер [{i}]", "answer": str(i)}) + "\n"
                )
        runs = {kind: _measure(kind, data, Path(tmp) / kind, args.batch_size) for kind in kinds}
    print(f"requests: {args.requests:,}; batch size {args.batch_size:,}")
    print(f"{'run':<28}{'peak RSS':>10}{'wall':>9}{'batches':>9}{'ok':>9}{'/chat':>7}{'exit':>6}")
    names = {"cli": "whole CLI (results, report)", "runner": "runner alone"}
    for kind, r in runs.items():
        print(
            f"{names[kind]:<28}{r['rss_mb']:>7.0f} MB{r['wall']:>7.1f} s{r['batches']:>9}{r['ok']:>9,}"
            f"{r['chat']:>7}{r['rc']:>6}"
        )
    worst = max(float(str(r["rss_mb"])) for r in runs.values())
    print(f"target: peak RSS ≤ 300 MB: {'PASS' if worst <= 300 else 'FAIL'} (highest {worst:.0f} MB)")


if __name__ == "__main__":
    main()
