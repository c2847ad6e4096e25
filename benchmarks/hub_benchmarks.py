"""Importing and scoring published benchmarks from their Hub layout (issue 36: ≥ 2,000 rows/s, memory flat).

For each benchmark, a copy of N rows in the published layout (``omnieval.testing.hub_copies``; 2×2 PNG
images) and a replay answer per sample, measured two ways, each at N/4 and N rows (equal peaks: memory
flat in the number of rows):

- ``import+score``: in a fresh subprocess, stream the task's samples from the Parquet row groups and
  parse and score each replayed answer with the benchmark's own parser and metric: what issue 36 adds,
  without the run machinery;
- ``omnieval run``: the whole CLI (``--tasks BENCH:DIR --model replay/FILE``: start-up, requests, records,
  results.json, report.html) as a subprocess.

Rows/s is rows over wall time (for import+score, the in-process seconds after start-up); CPU s is the
subprocess's user + system time (start-up included), so rows per CPU second is what an idle machine gives
per core when this one is loaded; peak RSS is the subprocess's own ``VmHWM`` (``ru_maxrss`` would count
this process's memory, which a child shares until it starts its interpreter); load is the 1-minute load
average as the line is printed (on a shared machine, rows/s falls as it rises; rows/CPU s much less).
Usage:
``python benchmarks/hub_benchmarks.py [--rows 10000] [--only mmstar,chartqa,...]`` (default: all).
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
PEAK = (
    'print("peak_kib", next(x.split()[1] for x in open("/proc/self/status") if x.startswith("VmHWM")), '
    "file=sys.stderr)"
)
PIPELINE = f"""
import sys, time
from omnieval.metrics import bind_metric
from omnieval.parsers import bind_parser
from omnieval.runner.resolve import resolve_tasks
from omnieval.types import ScoringInput
answers = {ANSWERS!r}
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
{PEAK}
"""
CLI = f"""
import runpy, sys
sys.argv = ["omnieval", *sys.argv[1:]]
try:
    runpy.run_module("omnieval", run_name="__main__")
finally:
    {PEAK}
"""


class _Children:
    """CPU seconds (user + system) of each finished subprocess, from the running total of children."""

    def __init__(self) -> None:
        self.seen = 0.0

    def last(self) -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        total = usage.ru_utime + usage.ru_stime
        spent, self.seen = total - self.seen, total
        return spent


_children = _Children()


_ENV = dict(os.environ)
"""The subprocesses' environment (:func:`_compiled`)."""


def _compiled(work: Path) -> None:
    """Subprocesses start as an installed omnieval does, from compiled bytecode: a source checkout under
    ``PYTHONDONTWRITEBYTECODE`` (as on the shared machine) compiled ~340 modules in every run, ≈ 0.5 s of
    each ``omnieval run``'s start-up. The bytecode goes to a cache under ``work``, never into the tree."""
    import omnieval

    _ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    _ENV["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    package = str(Path(omnieval.__file__).parent)
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], env=_ENV, check=True)


def _measure(command: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds, peak RSS (MiB) and stdout of one subprocess."""
    start = time.perf_counter()
    done = subprocess.run(command, env=_ENV, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    cpu = _children.last()
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({done.returncode}): {done.stderr[-2000:]}")
    peak = next(int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("peak_kib"))
    return wall, cpu, peak / 1024, done.stdout


def _copy(name: str, root: Path, rows: int) -> Path:
    bench = hub_benchmarks.get(name)
    per_config = -(-rows // len(bench.configs or (None,)))
    return write_hub_copy(name, root, n=per_config, row_group_size=1000)


def _run(name: str, root: Path, work: Path) -> tuple[int, float, float, float]:
    ids = hub_row_ids(name, root)
    replay = work / f"{name}-{len(ids)}.jsonl"
    lines = (
        json.dumps({"task": name, "sample_id": i, "response": ANSWERS[k % len(ANSWERS)]})
        for k, i in enumerate(ids)
    )
    replay.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    out = work / f"out-{name}-{len(ids)}"
    command = [sys.executable, "-c", CLI, "run", "--tasks", f"{name}:{root}", "--model", f"replay/{replay}"]
    wall, cpu, rss, _ = _measure([*command, "--output", str(out), "-q"])
    scored = json.loads((out / "results.json").read_text(encoding="utf-8"))["tasks"][name]["n"]
    return scored, wall, cpu, rss


def _pipeline(name: str, root: Path) -> tuple[int, float, float, float]:
    """Rows, the in-process seconds of import + scoring (start-up excluded), CPU seconds and peak RSS."""
    _, cpu, rss, stdout = _measure([sys.executable, "-c", PIPELINE, f"{name}:{root}"])
    rows, seconds = stdout.split()
    return int(rows), float(seconds), cpu, rss


def _print(name: str, measure: str, figures: tuple[int, float, float, float]) -> None:
    n, wall, cpu, rss = figures
    load = os.getloadavg()[0]
    line = f"{n:>8}{wall:>9.2f}{n / wall:>9.0f}{cpu:>8.2f}{n / cpu:>12.0f}{rss:>14.0f}{load:>7.1f}"
    print(f"{name:<12}{measure:<14}{line}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--only", default=",".join(BENCHES))
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    header = f"{'rows':>8}{'wall s':>9}{'rows/s':>9}{'CPU s':>8}{'rows/CPU s':>12}{'peak RSS MiB':>14}"
    header += f"{'load':>7}"
    print(f"{'benchmark':<12}{'measure':<14}{header}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _compiled(work)
        for name in args.only.split(","):
            for rows in (args.rows // 4, args.rows):
                root = _copy(name, work / f"{name}-{rows}", rows)
                _print(name, "import+score", _pipeline(name, root))
                _print(name, "omnieval run", _run(name, root, work))


if __name__ == "__main__":
    main()
