"""Harness CPU of several git revisions side by side: where did a healthy run's overhead change?

Each revision's ``src/`` is extracted (``git archive``) and byte-compiled, as an installed package
is; then ``omnieval run`` of each runs in turn against one local fake server at 0 ms latency, a
large run and a 20-sample run (its start-up) per round, ``--repeats`` rounds interleaved so drift on
a shared machine hits every revision alike. Printed per revision: the whole run's CPU (user +
system, median), the start-up run's CPU, CPU per request with start-up subtracted, and each as a
change against the first revision. Usage:
``python benchmarks/harness_revisions.py 738ba36 main HEAD [--samples 4000] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_overhead import baseline_env, check_complete, fake_server, make_task, run_cli


def compiled_env(work: Path, ref: str) -> dict[str, str]:
    """``ref``'s src/ on PYTHONPATH, byte-compiled once (the timed runs then load .pyc files)."""
    env = baseline_env(work, ref)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", env["PYTHONPATH"]], env=env, check=True)
    return env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("refs", nargs="+", help="git revisions; the first is the reference")
    ap.add_argument("--samples", type=int, default=4000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="omnieval-revs-"))
    try:
        envs = {ref: compiled_env(work, ref) for ref in args.refs}
        big, small = make_task(work / "big.jsonl", args.samples), make_task(work / "small.jsonl", 20)
        cpu: dict[str, list[float]] = {ref: [] for ref in args.refs}
        start: dict[str, list[float]] = {ref: [] for ref in args.refs}
        with fake_server(0) as url:
            for i in range(args.repeats):
                for n, (ref, env) in enumerate(envs.items()):
                    for task, size, into in ((big, args.samples, cpu), (small, 20, start)):
                        out = work / f"out-{i}-{n}-{size}"
                        into[ref].append(run_cli(task, url, out, concurrency=64, env=env).cpu)
                        check_complete(out, size)
                        shutil.rmtree(out)
        first = args.refs[0]
        total = {ref: statistics.median(cpu[ref]) for ref in args.refs}
        boot = {ref: statistics.median(start[ref]) for ref in args.refs}
        per = {ref: (total[ref] - boot[ref]) * 1000.0 / args.samples for ref in args.refs}
        for ref in args.refs:
            print(
                f"{ref:>12}: run CPU {total[ref]:.2f} s ({100 * (total[ref] / total[first] - 1):+.1f} %), "
                f"start-up {boot[ref]:.2f} s ({boot[ref] - boot[first]:+.2f} s), "
                f"per request {per[ref]:.3f} ms ({100 * (per[ref] / per[first] - 1):+.1f} %)",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
