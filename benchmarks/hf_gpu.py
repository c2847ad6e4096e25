"""The ``hf`` backend on a GPU: the same answers as on the CPU, batching throughput, a whole CLI run.

No weights may be downloaded and the real Gemma 3 270M weights (1 GB once converted) are too large to
carry to a lent GPU machine, so the model here is Gemma 3 270M's architecture and tokenizer with seeded
random weights, built from the converted model's ``config.json`` and ``tokenizer.json``
(``--model-dir``). Its answers are gibberish; what is measured is that omnieval's GPU path gives what
its CPU path gives and how fast it goes:

- parity: the same float32 weights answer 16 prompts greedily (16 new tokens) on the CPU and on
  ``--device``; the share of identical answers and of identical first tokens (random weights make
  near-ties, where float rounding between devices may pick another token), and the largest
  difference of a multiple-choice log-likelihood;
- throughput: tokens per second in bfloat16 at batch sizes 1, 8 and 32;
- end to end: ``omnieval run --model hf/PATH --device ...`` on a generated 64-sample
  jsonl task; every sample must end ``ok`` or ``parse_failed`` (never ``error``).

Run: ``python benchmarks/hf_gpu.py --model-dir DIR [--device cuda] [--layers N] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hf_batching import PROMPTS  # this folder: the script's own directory is on sys.path

from omnieval.backends import BackendOptions
from omnieval.backends.hf import HFBackend
from omnieval.types import GenerationConfig, Message, Request, Response

TOKENIZER_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json")


def build_model(model_dir: Path, out: Path, *, layers: int | None) -> Path:
    """Seeded random weights in the architecture of ``model_dir``, saved with its tokenizer."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(model_dir)
    if layers is not None:
        config.num_hidden_layers = layers
        if getattr(config, "layer_types", None):
            config.layer_types = config.layer_types[:layers]
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.save_pretrained(out)
    for name in TOKENIZER_FILES[1:]:
        source = model_dir / name
        if source.is_file():
            (out / name).write_bytes(source.read_bytes())
    return out


def requests(n: int, max_tokens: int) -> list[Request]:
    config = GenerationConfig(temperature=0.0, max_tokens=max_tokens)
    return [
        Request(
            task="bench",
            sample_id=str(i),
            messages=(Message(role="user", content=PROMPTS[i % len(PROMPTS)] + f" ({i})"),),
            generation=config,
        )
        for i in range(n)
    ]


def mc_request() -> Request:
    return Request(
        task="bench",
        sample_id="mc",
        kind="loglikelihood",
        messages=(Message(role="user", content="Столица России —"),),
        continuations=(" Москва", " Париж", " Берлин", " Токио"),
        generation=GenerationConfig(temperature=0.0, max_tokens=1),
    )


def answers(backend: HFBackend, batch: list[Request]) -> list[Response]:
    results = backend.run_batch(batch)
    failed = [r for r in results if not isinstance(r, Response)]
    if failed:
        raise SystemExit(f"generation failed: {failed[0]}")
    return [r for r in results if isinstance(r, Response)]


def parity(path: Path, device: str) -> dict[str, Any]:
    """Greedy answers and log-likelihoods of the same float32 weights on the CPU and on ``device``."""
    per_device: dict[str, tuple[list[Response], Response]] = {}
    for where in ("cpu", device):
        backend = HFBackend(str(path), options=BackendOptions(batch_size=8, device=where, dtype="float32"))
        per_device[where] = (answers(backend, requests(16, 16)), answers(backend, [mc_request()])[0])
    (cpu, cpu_mc), (dev, dev_mc) = per_device["cpu"], per_device[device]
    same = sum(a.text == b.text for a, b in zip(cpu, dev, strict=True))
    first = sum(a.text[:1] == b.text[:1] for a, b in zip(cpu, dev, strict=True))
    cpu_ll = cpu_mc.logprobs or ()
    dev_ll = dev_mc.logprobs or ()
    worst = max((abs(a - b) for a, b in zip(cpu_ll, dev_ll, strict=True)), default=float("nan"))
    return {
        "identical_answers": f"{same}/{len(cpu)}",
        "identical_first_characters": f"{first}/{len(cpu)}",
        "max_abs_loglikelihood_difference": worst,
        "same_multiple_choice_ranking": _ranking(cpu_ll) == _ranking(dev_ll),
    }


def _ranking(values: Any) -> list[int]:
    return sorted(range(len(values)), key=lambda i: -values[i])


def throughput(path: Path, device: str) -> dict[str, float]:
    """Completion tokens per second in bfloat16 at batch sizes 1, 8 and 32 (64 prompts, 32 tokens)."""
    rates: dict[str, float] = {}
    for batch in (1, 8, 32):
        options = BackendOptions(batch_size=batch, device=device, dtype="bfloat16")
        backend = HFBackend(str(path), options=options)
        answers(backend, requests(batch, 4))  # loading and kernel warm-up
        started = time.perf_counter()
        done = answers(backend, requests(64, 32))
        seconds = time.perf_counter() - started
        tokens = sum(r.usage.completion_tokens or 0 for r in done)
        rates[f"batch_{batch}_tokens_per_s"] = round(tokens / seconds, 1)
    rates["batch_32_over_batch_1"] = round(rates["batch_32_tokens_per_s"] / rates["batch_1_tokens_per_s"], 2)
    return rates


def end_to_end(path: Path, device: str, work: Path) -> dict[str, Any]:
    """The real CLI on the GPU: every sample ends in a counted, non-error state."""
    task = work / "gpu_task.jsonl"
    with task.open("w", encoding="utf-8") as fh:
        for i in range(64):
            row = {"id": f"q{i}", "question": f"Сколько будет {i} + 1? Ответь числом.", "answer": str(i + 1)}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    out = work / "gpu_run"
    cmd = [sys.executable, "-m", "omnieval", "run", "--model", f"hf/{path}", "--tasks", f"jsonl:{task}"]
    cmd += ["--device", device, "--batch-size", "16", "--dtype", "bfloat16", "--max-tokens", "16"]
    cmd += ["--output", str(out), "--quiet"]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"omnieval run exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    (task_result,) = results["tasks"].values()
    states = task_result["states"]
    if states.get("error", 0) or sum(states.values()) != 64:
        raise SystemExit(f"end-to-end run: unexpected states {states}")
    return {"wall_s": round(wall, 1), "states": states, "backend": results.get("backend", {})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model-dir", type=Path, required=True, help="config.json + tokenizer files")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--layers", type=int, default=None, help="fewer layers (a quick CPU check)")
    parser.add_argument("--only", default="parity,throughput,end_to_end", help="comma list of the parts")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here too")
    args = parser.parse_args()
    import torch

    report: dict[str, Any] = {"torch": torch.__version__, "device": args.device}
    if args.device.startswith("cuda"):
        report["gpu"] = torch.cuda.get_device_name(0)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = build_model(args.model_dir, work / "model", layers=args.layers)
        for name, step in (
            ("parity", lambda: parity(path, args.device)),
            ("throughput", lambda: throughput(path, args.device)),
            ("end_to_end", lambda: end_to_end(path, args.device, work)),
        ):
            if name not in args.only.split(","):
                continue
            started = time.perf_counter()
            report[name] = step()
            report[f"{name}_s"] = round(time.perf_counter() - started, 1)
            print(json.dumps({name: report[name]}, ensure_ascii=False, default=str), flush=True)
    if args.out is not None:
        args.out.write_text(json.dumps(report, ensure_ascii=False, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
