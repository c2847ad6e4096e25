"""Generation throughput of the image and video suites (issue 11): instances per second and slowest step.

Each suite generates ``--n`` instances into a temporary folder (one process). The time inside the
two steps every instance goes through is measured by wrapping them: *encode* (PNG writing, or
MPEG-4 encoding for video) and *draw* (everything else: sampling the instance, drawing it, text
layout). CPU time is printed beside wall time, since on a shared machine wall time also measures the
neighbours. A second pass with ``--workers`` processes (default 2) prints the parallel rate and its ratio
to the single-process rate (the files are identical either way). Usage:
``python benchmarks/generate_suites_throughput.py [--n 200] [--workers 2] [--only shapes,clocks]``.

The function :func:`suites_section` is the part the combined ``generate_throughput.py`` calls.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SUITES = ("shapes", "charts", "tables", "text", "clocks", "math", "video-motion")


@contextlib.contextmanager
def _timed(module: Any, name: str, bucket: list[float]) -> Iterator[None]:
    """Replace ``module.name`` by a wrapper adding its wall time to ``bucket``."""
    original: Callable[..., Any] = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            bucket.append(time.perf_counter() - start)

    setattr(module, name, wrapper)
    try:
        yield
    finally:
        setattr(module, name, original)


def parallel_rate(suite: str, n: int, workers: int) -> float:
    """Instances per second with ``workers`` processes (same files as one process)."""
    from omnieval.sources.plugins import generators

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        generators.get(suite)(Path(tmp) / "set", seed=0, n=n, workers=workers)
        return n / (time.perf_counter() - start)


def measure(suite: str, n: int) -> dict[str, float]:
    """Generate ``n`` instances of ``suite``; wall and CPU seconds, instances/s, seconds per step."""
    import importlib

    from omnieval.sources.plugins import generators

    module = "video" if suite == "video-motion" else {"math": "arith"}.get(suite, suite)
    target = importlib.import_module(f"omnieval.benchmarks.synthetic.{module}")
    encode_name = "encode" if suite == "video-motion" else "save_png"
    encode: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, _timed(target, encode_name, encode):
        wall, cpu = time.perf_counter(), time.process_time()
        generators.get(suite)(Path(tmp) / "set", seed=0, n=n)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    steps = {"encode": sum(encode), "draw": wall - sum(encode)}
    return {"wall_s": wall, "cpu_s": cpu, "per_s": n / wall, **steps}


def suites_section(n: int, only: tuple[str, ...] = SUITES, workers: int = 2) -> list[dict[str, Any]]:
    """One row per suite; printed as a table by :func:`main`, reused by generate_throughput.py."""
    import omnieval.benchmarks  # noqa: F401  (registers the suites)

    rows = []
    for suite in only:
        result = measure(suite, n)
        slowest = max(("draw", "encode"), key=lambda step: result[step])
        parallel = parallel_rate(suite, n, workers) if workers > 1 else result["per_s"]
        rows.append({"suite": suite, "n": n, **result, "slowest": slowest, "parallel_per_s": parallel})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="instances per suite")
    parser.add_argument("--only", default=",".join(SUITES), help="comma-separated suites")
    parser.add_argument("--workers", type=int, default=2, help="processes for the parallel pass (1: skip it)")
    args = parser.parse_args()
    print_rows(
        suites_section(args.n, tuple(s for s in args.only.split(",") if s), args.workers), args.workers
    )


def print_rows(rows: list[dict[str, Any]], workers: int) -> None:
    """The suites' table: instances per second, the slowest step, and the parallel ratio."""
    print(
        f"{'suite':13s} {'n':>5s} {'inst/s':>8s} {'wall s':>7s} {'cpu s':>7s} {'draw s':>7s} "
        f"{'encode s':>8s} "
        f"{'slowest':>14s} {f'inst/s x{workers}':>11s} {'ratio':>6s}"
    )
    for r in rows:
        share = f"{r['slowest']} {100 * r[r['slowest']] / r['wall_s']:.0f}%"
        print(
            f"{r['suite']:13s} {r['n']:5d} {r['per_s']:8.1f} {r['wall_s']:7.2f} {r['cpu_s']:7.2f} "
            f"{r['draw']:7.2f} {r['encode']:8.2f} {share:>14s} {r['parallel_per_s']:11.1f} "
            f"{r['parallel_per_s'] / r['per_s']:6.2f}"
        )


if __name__ == "__main__":
    main()
