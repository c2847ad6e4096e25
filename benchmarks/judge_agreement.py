"""Judge-agreement throughput at POLLUX scale (≈160K cleaned triples, 2–5 raters, 100 trials each).

Prints, side by side in one run on the same synthetic table, the seconds of:
- ``recount``: the substitution trials re-counting labels every trial (the direct reading of the
  procedure);
- ``incremental``: omnieval's version (VC per replaced rater computed once, trials index into it);
and checks both give the same judge VC. Usage: ``python benchmarks/judge_agreement.py [--items 160000]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from omnieval.analysis.agreement import judge_substitution_vc, verdict_confidence


def recount(labels: list[int], judge: int, *, trials: int, rng: np.random.Generator) -> float:
    total = 0.0
    for index in rng.integers(0, len(labels), size=trials):
        trial = labels.copy()
        trial[int(index)] = judge
        total += verdict_confidence(trial)
    return total / trials


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=160_000)
    args = parser.parse_args()
    data = np.random.default_rng(0)
    table = [
        ([int(v) for v in data.integers(0, 3, size=int(data.integers(2, 6)))], int(data.integers(0, 3)))
        for _ in range(args.items)
    ]
    timings, values = {}, {}
    for name, fn in (("recount", recount), ("incremental", judge_substitution_vc)):
        rng = np.random.default_rng(1)
        start = time.perf_counter()
        values[name] = sum(fn(labels, judge, trials=100, rng=rng) for labels, judge in table) / len(table)
        timings[name] = time.perf_counter() - start
    assert abs(values["recount"] - values["incremental"]) < 1e-12, values
    print(f"items={args.items} trials=100 judge_vc={values['incremental']:.6f}")
    print(f"recount     {timings['recount']:8.2f} s")
    print(
        f"incremental {timings['incremental']:8.2f} s   speed-up "
        f"×{timings['recount'] / timings['incremental']:.1f}"
    )


if __name__ == "__main__":
    main()
