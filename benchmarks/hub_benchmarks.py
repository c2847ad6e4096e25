"""Importing and scoring published benchmarks from their Hub layout (issue 36: ≥ 2,000 rows/s, memory flat).

For each benchmark, a copy of N rows in the published layout (``omnieval.testing.hub_copies``; 2×2 PNG
images) and a replay answer per sample, measured two ways, each at N/4 and N rows (equal peaks: memory
flat in the number of rows):

- ``import+score``: in a fresh subprocess, stream the task's samples from the Parquet row groups and
  parse and score each replayed answer with the benchmark's own parser and metric, then aggregate: what
  issue 36 adds, without the run machinery;
- ``omnieval run``: the whole CLI (``--tasks BENCH:DIR --model replay/FILE``: start-up, requests, records,
  results.json, report.html) as a subprocess.

Rows/s is rows over wall time; peak RSS comes from ``os.wait4``. Usage:
``python benchmarks/hub_benchmarks.py [--rows 10000] [--only mmstar,chartqa,...]`` (default: all).
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

from omnieval.sources.hub import hub_benchmarks
from omnieval.testing.hub_copies import hub_row_ids, write_hub_copy

BENCHES = (
    "mmstar",
    "mmmu",
    "mmbench",
    "mmbench_ru",
    "videomme",
    "chartqa",
    "docvqa",
    "textvqa",
    "ocrbench",
    "mmau",
    "mws_vision",
)
ANSWERS = ("A", "The answer is (B).", "C", "I think D", "no idea")


def _copy(name: str, root: Path, rows: int) -> Path:
    bench = hub_benchmarks.get(name)
    per_config = -(-rows // len(bench.configs or (None,)))
    return write_hub_copy(name, root, n=per_config, row_group_size=1000)


PIPELINE = """
import sys, time
from omnieval.metrics import bind_metric
from omnieval.parsers import bind_parser
from omnieval.runner.resolve import resolve_tasks
from omnieval.types import ScoringInput
answers = ANSWERS
start = time.perf_counter()
(task,) = resolve_tasks([sys.argv[1]])
parse = bind_parser(task.spec.parser)
metrics = [bind_metric(m) for m in task.spec.metrics]
rows, total = 0, 0.0
for k, sample in enumerate(task.iter_samples()):
    text = answers[k % len(answers)]
    parsed = parse(text, sample)
    inp = ScoringInput(response=text, prediction=parsed.value if parsed.ok else None, parsed=parsed.ok,
                       targets=sample.targets, choices=sample.choices, metadata=sample.metadata)
    rows += 1
    total += sum(sum(m(inp).values()) for m in metrics) if parsed.ok else 0.0
print(rows, time.perf_counter() - start)
""".replace("ANSWERS", repr(ANSWERS), 1)


def _measure(command: list[str]) -> tuple[float, float, str]:
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=os.environ, stdout=subprocess.PIPE, text=True)
    stdout = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{command[:4]} failed ({status})")
    return time.perf_counter() - start, usage.ru_maxrss / 1024, stdout  # KiB → MiB (Linux)


def _run(name: str, root: Path, work: Path) -> tuple[int, float, float]:
    ids = hub_row_ids(name, root)
    replay = work / f"{name}-{len(ids)}.jsonl"
    lines = (
        json.dumps({"task": name, "sample_id": i, "response": ANSWERS[k % len(ANSWERS)]})
        for k, i in enumerate(ids)
    )
    replay.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    out = work / f"out-{name}-{len(ids)}"
    command = [
        sys.executable,
        "-m",
        "omnieval",
        "run",
        "--tasks",
        f"{name}:{root}",
        "--model",
        f"replay/{replay}",
    ]
    wall, rss, _ = _measure([*command, "--output", str(out), "-q"])
    scored = json.loads((out / "results.json").read_text(encoding="utf-8"))["tasks"][name]["n"]
    return scored, wall, rss


def _pipeline(name: str, root: Path) -> tuple[int, float, float]:
    """Rows and the in-process seconds of import + scoring (start-up excluded), and the peak RSS."""
    _, rss, stdout = _measure([sys.executable, "-c", PIPELINE, f"{name}:{root}"])
    rows, seconds = stdout.split()
    return int(rows), float(seconds), rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--only", default=",".join(BENCHES))
    args = parser.parse_args()
    print(f"{'benchmark':<12}{'measure':<14}{'rows':>8}{'wall s':>9}{'rows/s':>9}{'peak RSS MiB':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in args.only.split(","):
            for rows in (args.rows // 4, args.rows):
                root = _copy(name, work / f"{name}-{rows}", rows)
                for measure, (n, wall, rss) in (
                    ("import+score", _pipeline(name, root)),
                    ("omnieval run", _run(name, root, work)),
                ):
                    print(
                        f"{name:<12}{measure:<14}{n:>8}{wall:>9.2f}{n / wall:>9.0f}{rss:>14.0f}", flush=True
                    )


if __name__ == "__main__":
    main()
