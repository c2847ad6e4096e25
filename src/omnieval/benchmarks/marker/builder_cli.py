"""``omnieval marker distractors | necessity | model-set``: MARKER's dataset-builder tools."""

from __future__ import annotations

import json
import random
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.benchmarks.marker.cli import app

__all__ = ["distractors_cmd", "model_set_cmd", "necessity_cmd"]


def _options(pairs: list[str] | None, what: str) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; values are read as JSON when they parse (numbers, booleans), else strings."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"{what} must look like KEY=VALUE, got {pair!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def _fail(exc: Exception) -> None:
    typer.echo(f"omnieval marker: {exc}", err=True)
    raise typer.Exit(2) from None


def _row(checked: Any, *, k: int, seed: int, embedder: str, judge: str | None) -> dict[str, Any]:
    mined = checked.mined
    item = mined.item
    choices = [item.answer, *checked.main]
    random.Random(f"{seed}:{item.id}:order").shuffle(choices)
    return {
        **item.extra,
        "id": item.id,
        "question": item.question,
        "answer": item.answer,
        "choices": choices,
        "mining": {
            "embedder": embedder,
            "k": k,
            "seed": seed,
            "judge": judge,
            "spares": list(mined.spares),
            "sampled_main": list(mined.main),
            "neighbours": [list(n) for n in mined.neighbours],
            "validation": {
                "state": checked.state,
                "bad": list(checked.bad),
                "swaps": [list(s) for s in checked.swaps],
                "unreplaced": checked.unreplaced,
                "reason": checked.reason,
            },
        },
    }


@app.command("distractors")
def distractors_cmd(
    items: Annotated[Path, typer.Argument(help="JSONL with id, question, answer (optional options list).")],
    embedder: Annotated[str, typer.Option(help="hf/LOCAL_PATH or openai/MODEL.")],
    output: Annotated[Path, typer.Option(help="Where to write the items with choices (JSONL).")],
    k: Annotated[int, typer.Option(help="Nearest options per correct answer to sample from.")] = 20,
    n_main: Annotated[int, typer.Option(help="Main distractors per item.")] = 4,
    n_spare: Annotated[int, typer.Option(help="Spare distractors per item.")] = 4,
    seed: Annotated[int, typer.Option(help="Sampling seed (logged).")] = 0,
    judge: Annotated[
        str | None, typer.Option(help="Model that checks the distractors (e.g. openai/gpt-4.1-mini).")
    ] = None,
    embedder_opt: Annotated[
        list[str] | None, typer.Option("--embedder-opt", help="Embedder option KEY=VALUE.")
    ] = None,
    judge_base_url: Annotated[str | None, typer.Option(help="Base URL of the judge's API.")] = None,
) -> None:
    """Mine distractors by embedding similarity, sample main + spare, let an LLM judge swap bad ones."""
    from omnieval.backends import BackendOptions
    from omnieval.backends.embeddings import create_embedder
    from omnieval.benchmarks.marker.distractors import load_items, mine
    from omnieval.benchmarks.marker.validation import PROMPT_VERSION, validate
    from omnieval.errors import OmnievalError

    try:
        loaded = load_items(items)
        model = create_embedder(embedder, **_options(embedder_opt, "--embedder-opt"))
        mined = mine(loaded, model, k=k, n_main=n_main, n_spare=n_spare, seed=seed)
        judged: dict[str, Any] = {}
        checked = validate(
            mined, judge=judge, options=BackendOptions(base_url=judge_base_url), described=judged
        )
    except OmnievalError as exc:
        _fail(exc)
    rows = [_row(c, k=k, seed=seed, embedder=embedder, judge=judge) for c in checked]
    states = {s: sum(c.state == s for c in checked) for s in ("ok", "judge_failed", "not_checked")}
    log = {
        "embedder": embedder,
        "k": k,
        "seed": seed,
        "n_main": n_main,
        "n_spare": n_spare,
        "judge": judge,
        "prompt_version": PROMPT_VERSION,
        "judge_version": judged.get("version"),
        "items": len(rows),
        "states": states,
        "swapped": sum(len(c.swaps) for c in checked),
        "unreplaced": sum(c.unreplaced for c in checked),
        "short": sum(len(c.main) < n_main for c in checked),
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    partial.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    partial.replace(output)
    output.with_name(output.name + ".log.json").write_text(
        json.dumps(log, ensure_ascii=False, indent=2), encoding="utf-8"
    )
    typer.echo(json.dumps(log, ensure_ascii=False))


@app.command("necessity")
def necessity_cmd(
    runs: Annotated[
        list[Path], typer.Argument(help="Run directories: each model with media and with --blind.")
    ],
    task: Annotated[str, typer.Option(help="Task name inside the runs.")],
    threshold: Annotated[float, typer.Option(help="Flag items whose blind score reaches this.")] = 0.5,
    metric: Annotated[str | None, typer.Option(help="Metric key per sample (default: the score).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Flag items answerable from the text alone (blind score vs media score per item)."""
    from omnieval.benchmarks.marker.necessity import load_runs, review
    from omnieval.errors import OmnievalError

    try:
        media, blind = load_runs(runs, task=task, metric=metric)
        stats = review(media, blind, threshold=threshold)
    except OmnievalError as exc:
        _fail(exc)
    flagged = [s for s in stats if s.flagged]
    if json_out:
        typer.echo(
            json.dumps(
                {"threshold": threshold, "flagged": len(flagged), "items": [asdict(s) for s in stats]},
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    typer.echo(f"{len(flagged)} of {len(stats)} items reach blind score >= {threshold}:")
    for s in flagged:
        typer.echo(
            f"  {s.item:30s} blind {s.blind:.2f}  media {'-' if s.media is None else f'{s.media:.2f}'}"
        )


@app.command("model-set")
def model_set_cmd(
    runs: Annotated[list[Path], typer.Argument(help="Run directories, one per model.")],
    models: Annotated[
        Path | None, typer.Option(help="JSON {model: {params_b, bits, base}} overriding names.")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Mean scores per size band and score changes between quantization levels of one model."""
    from omnieval.benchmarks.marker.model_set import load_scores, model_facts, quantization_deltas, size_bands
    from omnieval.errors import OmnievalError

    try:
        scores = [load_scores(r) for r in runs]
        overrides = json.loads(models.read_text(encoding="utf-8")) if models else {}
    except (OmnievalError, OSError, json.JSONDecodeError) as exc:
        _fail(exc)
    facts = {s.model: model_facts(s.model, overrides) for s in scores}
    bands, deltas = size_bands(scores, facts), quantization_deltas(scores, facts)
    if json_out:
        summary = {"models": {m: asdict(f) for m, f in facts.items()}, "bands": bands, "quantization": deltas}
        typer.echo(json.dumps(summary, ensure_ascii=False, indent=2))
        return
    for band, info in bands.items():
        typer.echo(f"{band:8s} mean {info['mean']:.3f}  ({', '.join(info['models'])})")
    for d in deltas:
        mean = sum(d["delta"].values()) / len(d["delta"]) if d["delta"] else 0.0
        typer.echo(f"{d['base']}: {d['lower_bits']}->{d['higher_bits']} bits, mean delta {mean:+.3f}")
