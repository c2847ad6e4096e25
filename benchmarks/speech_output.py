"""Benchmark: spoken answers — Festival against espeak-ng on ``tts_ru``, recognition speed, cache hits.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/speech_output.py [--limit 60]``

Each engine answers the first ``--limit`` sentences of ``tts_ru`` (the five kinds in turn) through a
real ``omnieval`` run; the packaged Whisper base hears every answer (fresh perception cache, so every
clip is recognised). Reported: the task's CER, WER and error states per engine; the recogniser's speed
as seconds of audio per second of recognition (summed over the clips, one clip at a time, CTranslate2
on every core of this machine); and a second Festival run on the first run's response cache: its wall
time, whether every answer was a cache hit (nothing synthesised) and whether the scores came out equal.
Numbers go into docs/running/spoken-answers.md.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from omnieval import api


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


def _run(model: str, out: Path, *, limit: int, cache_path: Path | None = None) -> dict[str, Any]:
    started = time.perf_counter()
    result = api.evaluate(
        tasks="tts_ru", model=model, output=out, limit=limit, quiet=True, cache_path=cache_path
    )
    wall = time.perf_counter() - started
    block = result.results.tasks["tts_ru"]
    rows = _records(out)
    audio_s = sum(r["audio"]["duration_s"] for r in rows if r.get("audio"))
    asr_s = sum(r["audio"]["measures"].get("recognition_s", 0.0) for r in rows if r.get("audio"))
    return {
        "model": model,
        "n": len(rows),
        "cer": round(block.metrics["cer"], 4),
        "spoken_wer": round(block.metrics["spoken_wer"], 4),
        "states": dict(block.states),
        "audio_s": round(audio_s, 1),
        "recognition_s": round(asr_s, 1),
        "audio_s_per_s": round(audio_s / asr_s, 2) if asr_s else None,
        "cached": sum(bool(r["cached"]) for r in rows),
        "wall_s": round(wall, 1),
    }


def _speed(run_dir: Path, engine: str, *, clips: int = 20) -> dict[str, Any]:
    """Whisper base as the run hears (beam 5, one pass), on 2 CPU threads, one clip after another: seconds
    of audio per second of recognition over the run's first ``clips`` kept answers."""
    import soundfile

    from omnieval.backends.cascade.engines import cache_root, recognizer
    from omnieval.runner.hearing import hearing_stage
    from omnieval.types import MediaRef

    engine_2 = recognizer(hearing_stage().model_copy(update={"threads": 2}), root=cache_root())
    paths = [run_dir / r["audio"]["path"] for r in _records(run_dir)[:clips]]
    audio_s = sum(soundfile.info(p).duration for p in paths)
    spent = sum(
        engine_2.recognise_timed(MediaRef(kind="audio", name=p.name, path=str(p)), language="ru")[1]
        for p in paths
    )
    return {
        "voice": engine,
        "clips": len(paths),
        "audio_s": round(audio_s, 1),
        "recognition_s": round(spent, 1),
        "audio_s_per_s": round(audio_s / spent, 2),
        "threads": 2,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        whisper = Path(os.environ.get("OMNIEVAL_CACHE") or "~/.cache/omnieval").expanduser()
        os.environ["OMNIEVAL_CACHE"] = str(root / "cache")  # every clip recognised afresh
        (root / "cache").mkdir()
        if (whisper / "whisper-base-ct2").is_dir():  # the joined model, not re-joined for the benchmark
            (root / "cache" / "whisper-base-ct2").symlink_to(whisper / "whisper-base-ct2")
        out = {}
        for engine in ("festival", "espeak"):
            out[engine] = _run(f"tts/{engine}", root / engine, limit=args.limit)
            print(json.dumps(out[engine], ensure_ascii=False), flush=True)
        for engine in ("festival", "espeak"):
            print(json.dumps({"asr_speed": _speed(root / engine, engine)}), flush=True)
        again = _run(
            "tts/festival", root / "again", limit=args.limit, cache_path=root / "festival" / "cache.sqlite"
        )
        again["same_scores"] = (again["cer"], again["spoken_wer"]) == (
            out["festival"]["cer"],
            out["festival"]["spoken_wer"],
        )
        print(json.dumps({"cache_hit_rerun": again}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
