"""Benchmark: generation throughput of the data generators (instances per second, slowest step).

Run: ``.venv/bin/python benchmarks/generate_throughput.py [--scale art-h] [--full] [--workers 2]``

ART: the ART-H-sized set (24 per task, 216 instances) is generated twice in this one run, with one
worker process and with ``--workers`` processes, and the ratio is printed; a third single-process
pass under cProfile names the slowest step (speech synthesis, transformations, overlays, WAV writing,
planning). The goal (issue 11) is the full set (9 x 1,000 instances) in under 10 minutes on 2 cores:
the full time is extrapolated from the parallel rate, or measured with ``--full``. CPU time (all
processes, espeak-ng included) is printed too: on a shared machine wall time depends on the load.

Image/video suites: see the ``suites`` section below (one function per suite family).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

# --------------------------------------------------------------------------------------------- ART

_ART_STEPS = {
    "speech (espeak-ng)": "tts.py:speak",
    "transformations": "dsp.py:apply_transform",
    "background overlays": "dsp.py:overlay",
    "sound synthesis": "synth.py:synthesize",
    "WAV encoding": "dsp.py:wav_bytes",
    "planning (slot spaces)": "sampler.py:plan_task",
}


def _cold() -> None:
    """Forget the per-process caches (slot spaces, sounds, speech), as a fresh process would."""
    import omnieval.benchmarks.art.sampler as sampler
    import omnieval.benchmarks.art.synth as synth
    import omnieval.benchmarks.art.tts as tts

    sampler._CACHE.clear()
    synth.synthesize.cache_clear()
    tts.speak.cache_clear()


def _cpu_seconds() -> float:
    """CPU time of this process and every finished child (workers, espeak-ng runs)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _art(out: Path, **options: object) -> tuple[int, float, float]:
    """(instances, wall seconds, CPU seconds) of one cold generation."""
    from omnieval.benchmarks.art.generator import generate_art

    shutil.rmtree(out, ignore_errors=True)
    _cold()
    cpu, start = _cpu_seconds(), time.perf_counter()
    manifest = generate_art(out, **options)  # type: ignore[arg-type]
    elapsed, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    return sum(1 for _ in manifest.open(encoding="utf-8")), elapsed, cpu


def _slowest_steps(out: Path, scale: str) -> list[tuple[str, float]]:
    profile = cProfile.Profile()
    _cold()
    profile.enable()
    _art(out, scale=scale, workers=1, seed=11)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    totals = {}
    for label, where in _ART_STEPS.items():
        file, func = where.split(":")
        totals[label] = sum(
            v[3] for (path, _, name), v in stats.items() if path.endswith(f"art/{file}") and name == func
        )
    return sorted(totals.items(), key=lambda kv: kv[1], reverse=True)


def bench_art(root: Path, *, scale: str, workers: int, full: bool) -> None:
    load = os.getloadavg()[0]
    n1, t1, c1 = _art(root / "art-1", scale=scale, workers=1, seed=7)
    nw, tw, cw = _art(root / f"art-{workers}", scale=scale, workers=workers, seed=7)
    print(f"ART {scale}: {n1} instances (load average at start {load:.1f} on {os.cpu_count()} cores)")
    print(f"  1 worker : {t1:7.1f} s wall  {c1:7.1f} s CPU  {n1 / t1:6.1f} instances/s")
    print(
        f"  {workers} workers: {tw:7.1f} s wall  {cw:7.1f} s CPU  {nw / tw:6.1f} instances/s  (speed-up "
        f"x{t1 / tw:.2f})"
    )
    print(
        f"  full set (9,000) extrapolated at {workers} workers (upper bound: speech and clips are cached, so "
        f"larger sets are faster per instance): {9000 / (nw / tw) / 60:.1f} min wall, "
        f"{9000 * cw / nw / workers / 60:.1f} min if the {workers} cores were idle (goal < 10 min)"
    )
    print("  time per step (1 worker, cProfile, cumulative):")
    for label, seconds in _slowest_steps(root / "art-prof", scale):
        print(f"    {label:<24} {seconds:7.1f} s")
    if full:
        nf, tf, cf = _art(root / "art-full", scale="full", workers=workers, seed=7)
        print(
            f"  full set measured: {nf} instances in {tf / 60:.1f} min wall ({nf / tf:.1f} instances/s), "
            f"{cf / 60:.1f} min CPU = {cf / workers / 60:.1f} min on {workers} idle cores"
        )
    for sub in ("art-1", f"art-{workers}", "art-prof", "art-full"):
        shutil.rmtree(root / sub, ignore_errors=True)


# ------------------------------------------------------------------------------------------ suites
# Image/video suite generators (issue 11 items 5-6) add their measurements here, one function per
# family, called from main() below: instances per second and the slowest step, like bench_art.


def bench_suites(root: Path, *, workers: int, n: int = 200) -> None:
    """The image/video suites' throughput, measured by generate_suites_throughput.py's section."""
    del root  # the suites' section uses its own temporary folders
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import generate_suites_throughput as suites

    print(f"\nimage/video suites ({n} instances each, {workers} workers for the parallel pass)")
    suites.print_rows(suites.suites_section(n, workers=workers), workers)


# -------------------------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scale", default="art-h", help="ART scale for the side-by-side runs (tiny | art-h | full)."
    )
    parser.add_argument("--workers", type=int, default=2, help="Processes for the parallel run.")
    parser.add_argument(
        "--full", action="store_true", help="Also generate and time the full 9,000-instance ART set."
    )
    parser.add_argument("--only", choices=("art", "suites"), default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="omnieval-genbench-") as tmp:
        root = Path(tmp)
        if args.only in (None, "art"):
            bench_art(root, scale=args.scale, workers=args.workers, full=args.full)
        if args.only in (None, "suites"):
            bench_suites(root, workers=args.workers)


if __name__ == "__main__":
    main()
