"""Repeated sampling: harness CPU per record with ``--repeats 16`` against ``--repeats 1`` (issue 24).

Both runs write the same number of records (``--records``, default 4,000) through the in-process
runner with ``baseline/random`` (no network, so the time is the harness's own), then aggregate them
(``compute_results``: pass@k, maj@K, clustered bootstrap): K = 1 over ``records`` samples and K = 16
over ``records / 16`` samples. Runs are interleaved, CPU time (``time.process_time``) per record is
the median of ``--rounds``, and the ratio K=16 / K=1 must stay ≤ 1.10.
Usage: ``python benchmarks/repeats_overhead.py [--records 4000] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path


def _data(folder: Path, n: int) -> Path:
    path = folder / f"d{n}.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(
                json.dumps(
                    {"id": str(i), "question": f"вопрос {i}", "answer": "A", "choices": ["A", "B", "C"]}
                )
                + "\n"
            )
    return path


def _cpu_per_record(folder: Path, data: Path, repeats: int, tag: str) -> float:
    from omnieval.aggregate import compute_results
    from omnieval.runner import RunConfig, resolve_tasks, run
    from omnieval.store import iter_records

    out = folder / tag
    config = RunConfig(
        tasks=(f"jsonl:{data}",), model="baseline/random", output=out, repeats=repeats, quiet=True
    )
    start = time.process_time()
    run(config)
    tasks = resolve_tasks(config.tasks)
    results = compute_results(tasks, iter_records(out / "samples.jsonl"), model=config.model)
    elapsed = time.process_time() - start
    n = sum(results["states"].values())
    return elapsed / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        one, sixteen = _data(folder, args.records), _data(folder, args.records // 16)
        _cpu_per_record(folder, _data(folder, 64), 1, "warm")  # imports and first-call costs out of the way
        k1, k16 = [], []
        for r in range(args.rounds):
            k1.append(_cpu_per_record(folder, one, 1, f"k1-{r}"))
            k16.append(_cpu_per_record(folder, sixteen, 16, f"k16-{r}"))
    m1, m16 = statistics.median(k1), statistics.median(k16)
    ratio = m16 / m1
    print(f"records per run: {args.records}; rounds: {args.rounds}")
    print(f"K=1 : {m1 * 1e3:.3f} ms CPU per record (runs: {', '.join(f'{x * 1e3:.3f}' for x in k1)})")
    print(f"K=16: {m16 * 1e3:.3f} ms CPU per record (runs: {', '.join(f'{x * 1e3:.3f}' for x in k16)})")
    print(f"ratio K=16 / K=1: {ratio:.3f} (target ≤ 1.10: {'PASS' if ratio <= 1.10 else 'FAIL'})")


if __name__ == "__main__":
    main()
