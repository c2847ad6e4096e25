"""Judge throughput: is a judged run serialised behind generation? Does encoder batching pay?

Prints each measure next to its target from the judges issue:

- overlap: N samples against the local fake OpenAI server at 50 ms latency, model concurrency 64,
  run unjudged and then judged by an ``openai/`` judge (a second fake server, 50 ms, judge
  concurrency 64, one call per sample). Target: judged wall ≤ 1.2 × (unjudged wall + judge ideal),
  where judge ideal = N × 50 ms / 64.
- batching: a tiny random-weight BERT classifier judge (``hf_classifier``) on CPU, inputs/s at batch
  size 32 vs batch size 1 over the same inputs.

Usage: ``PYTHONPATH=src python benchmarks/judge_throughput.py [--samples 2000] [--only overlap,batching]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LATENCY_MS = 50.0
CONCURRENCY = 64
CPU: list[float] = []
"""Client CPU seconds of each run, printed beside the wall times (on two shared cores the client and the
two fake servers compete for CPU, so a CPU-bound run is not a serialised one)."""
CLIENT = {"http_client": "raw"}
"""Both runs use the same HTTP client: ``raw`` (the minimal keep-alive client) unless ``--client auto``."""


def _task(tmp: Path, n: int) -> Path:
    rows = [{"id": str(i), "question": f"Сколько будет {i}+{i}?", "answer": str(2 * i)} for i in range(n)]
    (tmp / "qa.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    task = tmp / "task.yaml"
    task.write_text(
        "name: bench\nsource: {type: jsonl, path: qa.jsonl}\nmetrics: [{name: exact_match, alias: em}]\n"
        "judge: {protocol: {name: direct}, template: binary_equivalence, derived: {fs: [em, js]}}\n",
        encoding="utf-8",
    )
    return task


def _run(task: Path, out: Path, model_url: str, judge_url: str | None) -> float:
    from omnieval.backends import BackendOptions
    from omnieval.runner import JudgeConfig, RunConfig
    from omnieval.runs.evaluation import evaluate_config

    judge = None
    if judge_url is not None:
        options = BackendOptions(base_url=judge_url, api_key="x", concurrency=CONCURRENCY, extra=CLIENT)
        judge = JudgeConfig(model="openai/judge", backend=options)
    config = RunConfig(
        tasks=(str(task),),
        model="openai/fake",
        output=out,
        quiet=True,
        use_cache=False,
        backend=BackendOptions(base_url=model_url, api_key="x", concurrency=CONCURRENCY, extra=CLIENT),
        judge=judge,
    )
    started, cpu = time.perf_counter(), time.process_time()
    _, results = evaluate_config(config)
    wall = time.perf_counter() - started
    CPU.append(time.process_time() - cpu)
    states = results["states"]
    assert states["ok"] == sum(states.values()), states
    if judge_url is not None:
        assert results["tasks"]["bench"]["metrics"]["js"] == 1.0
    return wall


@contextlib.contextmanager
def _server(answer: str) -> Iterator[str]:
    """A fake OpenAI server in its own process (in a thread it would share this process's GIL)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "omnieval.testing.fake_openai",
            "--latency-ms",
            str(LATENCY_MS),
            "--default-answer",
            answer,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(10)


def overlap(n: int, repeat: int = 3) -> bool:
    """Median of ``repeat`` alternating unjudged/judged pairs (a shared machine is noisy)."""
    plains, judgeds = [], []
    with tempfile.TemporaryDirectory() as d, _server("42") as model_url, _server("1") as judge_url:
        tmp = Path(d)
        task = _task(tmp, n)
        for i in range(repeat):
            plains.append(_run(task, tmp / f"plain{i}", model_url, None))
            judgeds.append(_run(task, tmp / f"judged{i}", model_url, judge_url))
    plain, judged = statistics.median(plains), statistics.median(judgeds)
    cpu_plain, cpu_judged = statistics.median(CPU[0::2]), statistics.median(CPU[1::2])
    ideal = n * LATENCY_MS / 1000 / CONCURRENCY
    ratio = judged / (plain + ideal)
    print(
        f"overlap   n={n} (median of {repeat}): unjudged {plain:.2f} s, judged {judged:.2f} s, judge ideal "
        f"{ideal:.2f} s "
        f"-> judged / (unjudged + ideal) = {ratio:.3f} (target <= 1.2) {'OK' if ratio <= 1.2 else 'FAIL'}; "
        f"client CPU {cpu_plain:.2f} s unjudged, {cpu_judged:.2f} s judged"
    )
    return ratio <= 1.2


def batching(n: int = 256, batch: int = 32) -> bool:
    sys.path.insert(0, str(ROOT))
    from tests.judges.tiny_encoder import build_tiny_bert_classifier

    from omnieval.backends import BackendOptions
    from omnieval.backends.hf.classifier import HFClassifierBackend
    from omnieval.types import Message, Request

    with tempfile.TemporaryDirectory() as d:
        path = build_tiny_bert_classifier(Path(d) / "enc")
        backend = HFClassifierBackend(str(path), options=BackendOptions(device="cpu"))
        sep = backend.sep_token()
        texts = [f"столица франции {i}{sep}париж{sep}{'париж ' * (i % 40)}" for i in range(n)]
        reqs = [
            Request(
                task="b",
                sample_id=str(i),
                messages=(Message(role="user", content=t),),
                prompt=t,
                kind="classify",
            )
            for i, t in enumerate(texts)
        ]
        backend.run_batch(reqs[:4])  # load and warm up
        rates = {}
        for size in (1, batch):
            started = time.perf_counter()
            for i in range(0, n, size):
                backend.run_batch(reqs[i : i + size])
            rates[size] = n / (time.perf_counter() - started)
    speedup = rates[batch] / rates[1]
    print(
        f"batching  n={n}: batch 1 {rates[1]:.0f} inputs/s, batch {batch} {rates[batch]:.0f} inputs/s -> "
        f"x{speedup:.2f} "
        f"(target > 1) {'OK' if speedup > 1 else 'FAIL'}"
    )
    return speedup > 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--only", default="overlap,batching")
    ap.add_argument("--repeat", type=int, default=3, help="overlap: pairs of runs (the median is reported)")
    ap.add_argument(
        "--client", default="raw", choices=["raw", "auto", "httpx"], help="HTTP client of both runs"
    )
    args = ap.parse_args()
    CLIENT["http_client"] = args.client
    wanted = set(args.only.split(","))
    ok = True
    if "overlap" in wanted:
        ok &= overlap(args.samples, args.repeat)
    if "batching" in wanted:
        ok &= batching()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
