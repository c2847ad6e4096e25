"""``art`` data generator: plan balanced instances, check everything, render WAVs in parallel.

Everything that can be wrong (options, voices missing from espeak-ng, unsatisfiable templates,
unreadable asset files) is checked before the first file is written. Rendering runs in worker
processes, one chunk of instances each; rows are written in plan order, so the same options and seed
give byte-identical files whatever the number of workers.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omnieval.benchmarks.art.assets import AssetPool, load_assets
from omnieval.benchmarks.art.dsp import RATE, wav_bytes
from omnieval.benchmarks.art.render import GAPS, Voices, render
from omnieval.benchmarks.art.sampler import Planned, art_h_subset, check_satisfiable, plan_task
from omnieval.benchmarks.art.spec import PAPER_LANGUAGES, TASKS, ArtSpec, load_spec
from omnieval.benchmarks.art.synth import RECIPE_VERSION
from omnieval.benchmarks.art.tts import check_voice, espeak_version, share_between_processes
from omnieval.errors import SourceError
from omnieval.sources.plugins import register_generator

__all__ = ["GENERATOR_VERSION", "SCALES", "generate_art"]

GENERATOR_VERSION = "art-1"
SCALES: dict[str, tuple[str, int]] = {
    "tiny": ("per_template", 2),
    "art-h": ("total", 24),
    "full": ("total", 1000),
}
"""tiny: 2 per template (one Yes, one No); art-h: 24 per task (the paper's ART-H); full: 1,000 per task."""
_CHUNK = 24
_SPEECH_CACHE = ".speech-cache"


@dataclass(frozen=True)
class _Config:
    out_dir: str
    seed: int
    language: str
    crli_languages: tuple[str, ...]
    question_voice: str | None
    assets: str | None
    asset_seed: int


_STATE: dict[str, Any] = {}


def _names(value: str | Iterable[str] | None, default: tuple[str, ...]) -> tuple[str, ...]:
    if value is None:
        return default
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(str(x).strip() for x in items if str(x).strip())


def _positive(name: str, value: Any) -> None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise SourceError(f"art: {name} must be a positive integer, got {value!r}", field=name)


def _sizes(n: int | None, per_template: int | None, scale: str | None) -> tuple[int | None, int | None]:
    """(instances per task, instances per template): exactly one way of sizing the set."""
    given = [k for k, v in (("n", n), ("per_template", per_template), ("scale", scale)) if v is not None]
    if len(given) > 1:
        raise SourceError(f"art: give only one of n, per_template, scale (got {given})", field=given[1])
    _positive("n", n)
    _positive("per_template", per_template)
    if scale is not None:
        if scale not in SCALES:
            raise SourceError(f"art: scale must be one of {sorted(SCALES)}, got {scale!r}", field="scale")
        kind, size = SCALES[scale]
        return (size, None) if kind == "total" else (None, size)
    if n is None and per_template is None:
        return None, SCALES["tiny"][1]
    return n, per_template


def _voices(spec: ArtSpec, question_voice: str | None) -> Voices:
    question = dict(spec.speech["question_voice"][spec.language])
    if question_voice is not None:
        question["voice"] = question_voice
    people = {**spec.speech["speakers"], **spec.speech["sfc_speakers"]}
    crli = {}
    for lang in spec.crli_languages:
        for i, variant in enumerate(spec.speech["crli_variants"], start=1):
            crli[f"{lang}_{i}"] = {
                "voice": f"{lang}+{variant['variant']}",
                "speed": variant["speed"],
                "pitch": variant["pitch"],
            }
    return Voices(question=question, people=people, crli=crli)


def _check_voices(voices: Voices, tasks: tuple[str, ...], *, language: str) -> None:
    check_voice(voices.question["voice"], what="question voice", language=language)
    if {"CRSI", "STI", "SFC", "TSR", "TTLR"} & set(tasks):
        for sid, person in voices.people.items():
            check_voice(person["voice"], what=f"speaker {sid}")
    if "CRLI" in tasks:
        for sid, person in voices.crli.items():
            check_voice(person["voice"], what=f"CRLI speaker {sid}")


def _setup(config: _Config) -> None:
    """Per process: the spec, voices and asset pool (assets are re-read; their check already passed)."""
    share_between_processes(Path(config.out_dir) / _SPEECH_CACHE)
    spec = load_spec(language=config.language, crli_languages=config.crli_languages)
    _STATE.update(
        config=config,
        spec=spec,
        voices=_voices(spec, config.question_voice),
        assets=load_assets(
            config.assets, asset_seed=config.asset_seed, crli_speakers=tuple(spec.tables["language"])
        ),
    )


def _row(index: int, planned: Planned, in_art_h: bool) -> dict[str, Any]:
    config: _Config = _STATE["config"]
    spec: ArtSpec = _STATE["spec"]
    assets: AssetPool = _STATE["assets"]
    template = next(t for t in spec.templates[planned.task] if t.id == planned.template)
    question = spec.question(template, planned.values)
    audio, segments = render(planned, question, spec=spec, voices=_STATE["voices"], assets=assets)
    ident = f"{planned.task}-{index:05d}"
    rel = f"audio/{planned.task}/{ident}.wav"
    data, clipped = wav_bytes(audio)
    path = Path(config.out_dir) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return {
        "id": ident,
        "task": planned.task,
        "template": planned.template,
        "variant": planned.variant,
        "question": question,
        "answer": planned.answer,
        "answer_text": spec.answer_text(planned.answer),
        "audio": rel,
        "language": spec.language,
        "slots": planned.values,
        "repeat": planned.repeat,
        "art_h": in_art_h,
        "duration_s": round(audio.size / RATE, 4),
        "sample_rate": RATE,
        "clipped_samples": clipped,
        "segments": segments,
        "seed": config.seed,
        "plan_index": index,
        "generator": GENERATOR_VERSION,
    }


def _render_chunk(chunk: list[tuple[int, Planned, bool]]) -> list[dict[str, Any]]:
    return [_row(*item) for item in chunk]


def _render_all(plan: list[tuple[int, Planned, bool]], config: _Config, workers: int) -> list[dict[str, Any]]:
    size = max(1, min(_CHUNK, -(-len(plan) // (4 * workers))))  # small sets still spread over the workers
    chunks = [plan[i : i + size] for i in range(0, len(plan), size)]
    if workers <= 1 or len(chunks) <= 1:
        _setup(config)
        return [row for chunk in chunks for row in _render_chunk(chunk)]
    with ProcessPoolExecutor(max_workers=workers, initializer=_setup, initargs=(config,)) as pool:
        return [row for rows in pool.map(_render_chunk, chunks) for row in rows]


def _summary(rows: list[dict[str, Any]], options: dict[str, Any], spec: ArtSpec) -> dict[str, Any]:
    counts: dict[str, Any] = {}
    for task in dict.fromkeys(r["task"] for r in rows):
        mine = [r for r in rows if r["task"] == task]
        per_template = Counter((r["template"], r["answer"]) for r in mine)
        counts[task] = {
            "n": len(mine),
            "Yes": sum(r["answer"] == "Yes" for r in mine),
            "No": sum(r["answer"] == "No" for r in mine),
            "repeats": sum(r["repeat"] for r in mine),
            "art_h": sum(r["art_h"] for r in mine),
            "templates": {
                t.id: {"Yes": per_template[(t.id, "Yes")], "No": per_template[(t.id, "No")]}
                for t in spec.templates[task]
            },
        }
    return {
        "generator": "art",
        "version": GENERATOR_VERSION,
        "options": options,
        "n": len(rows),
        "duration_s": round(sum(r["duration_s"] for r in rows), 2),
        "counts": counts,
        "versions": {**spec.versions, "synth": RECIPE_VERSION, "espeak-ng": espeak_version()},
        "audio": {"sample_rate": RATE, "format": "WAV PCM 16-bit mono", "level_dbfs": -20, "gaps_s": GAPS},
    }


@register_generator("art")
def generate_art(
    out_dir: Path,
    /,
    *,
    seed: int = 0,
    n: int | None = None,
    per_template: int | None = None,
    scale: str | None = None,
    tasks: str | list[str] | None = None,
    language: str = "en",
    languages: str | list[str] | None = None,
    question_voice: str | None = None,
    assets: str | None = None,
    asset_seed: int = 0,
    workers: int | None = None,
) -> Path:
    """ART audio reasoning: 9 tasks, 55 Yes/No templates, espeak-ng speech and synthesized sounds (n = per
    task).

    Sizing: ``per_template`` (each template), ``n`` (each task) or ``scale`` (tiny | art-h | full);
    default tiny. ``language``: en | ru edition. ``languages``: CRLI languages (default et,fi,hu,pl).
    ``assets``: folder of real recordings replacing synthetic sounds. ``asset_seed``: fresh synthetic
    variants. ``workers``: processes (default: all cores).
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise SourceError(f"art: seed must be an integer, got {seed!r}", field="seed")
    total, each = _sizes(n, per_template, scale)
    chosen = _names(tasks, TASKS)
    unknown = sorted(set(chosen) - set(TASKS))
    if unknown or not chosen:
        raise SourceError(f"art: unknown task(s) {unknown}; known: {list(TASKS)}", field="tasks")
    _positive("workers", workers)
    spec = load_spec(language=language, crli_languages=_names(languages, PAPER_LANGUAGES))
    voices = _voices(spec, question_voice)
    _check_voices(voices, chosen, language=language)
    check_satisfiable(spec, list(chosen))
    load_assets(assets, asset_seed=asset_seed, crli_speakers=tuple(spec.tables["language"]))
    plan: list[tuple[int, Planned, bool]] = []
    for task in TASKS:
        if task in chosen:
            planned = plan_task(spec, task, seed=seed, total=total, per_template=each)
            subset = art_h_subset(planned, spec, task, seed=seed)
            plan += [(i + 1, p, i in subset) for i, p in enumerate(planned)]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    config = _Config(str(out), seed, language, spec.crli_languages, question_voice, assets, asset_seed)
    try:
        rows = _render_all(plan, config, workers or os.cpu_count() or 1)
    finally:
        share_between_processes(None)
        shutil.rmtree(out / _SPEECH_CACHE, ignore_errors=True)
    options = {
        "seed": seed,
        "n": total,
        "per_template": each,
        "scale": scale,
        "tasks": list(chosen),
        "language": language,
        "languages": list(spec.crli_languages),
        "question_voice": voices.question["voice"],
        "assets": None if assets is None else str(assets),
        "asset_seed": asset_seed,
    }
    (out / "generation.json").write_text(
        json.dumps(_summary(rows, options, spec), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    manifest = out / "manifest.jsonl"
    with manifest.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return manifest
