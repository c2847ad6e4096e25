"""Benchmark: the cascade's perception stages — speed, cache-hit cost and recognition quality.

Run: ``.venv/bin/python benchmarks/cascade_throughput.py [--art-per-lang 6]``

Measured side by side in one run on the same clips and images:
- ASR (the packaged Whisper base, faster-whisper int8, CPU): audio seconds per wall second at beam 1
  and beam 5, and WER/CER against the spoken text on the demo's voices (Russian: Festival festvox-ru;
  English: espeak-ng) and on ART questions (Russian edition with Festival, English with espeak-ng;
  CER/WER over the question part of the transcript, the rest being the stimulus);
- OCR (Tesseract rus+eng): images per second and CER on the demo's generated text images (sign, table,
  chart: the reference is every number and word drawn);
- cache hits: the cost per media part of a second pass through ``CascadeBackend.convert`` (hash + JSON read)
  against the first (recognition), as a ratio.
Numbers go into docs/dev/measurements.md.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import jiwer

from omnieval.backends import BackendOptions
from omnieval.backends.cascade import CascadeBackend
from omnieval.backends.cascade.engines import Recognizer, recognizer
from omnieval.backends.cascade.spec import AsrStage, OcrStage
from omnieval.benchmarks.art.generator import generate_art
from omnieval.benchmarks.demo.image_text import demo_image_text
from omnieval.benchmarks.demo.media_data import speak, speak_festival
from omnieval.media import clear_fingerprint_memo
from omnieval.types import AudioPart, ImagePart, MediaRef, Message, Request

SENTENCES = {
    "ru": [
        "Сегодня в Москве идёт снег, и дети катаются на санках.",
        "Кошка спит на тёплом окне.",
        "Поезд отправляется с третьего пути через десять минут.",
        "Мы купили хлеб, молоко и свежие яблоки.",
    ],
    "en": [
        "The weather is cold and the sky is grey.",
        "My brother reads a book in the garden.",
        "The train leaves from platform three in ten minutes.",
        "We bought bread, milk and fresh apples.",
    ],
}


def norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower().replace("ё", "е")).split())


def _audio_seconds(path: Path) -> float:
    import soundfile

    return float(soundfile.info(str(path)).duration)


def _clips(folder: Path, per_lang: int) -> list[tuple[str, str, Path, str]]:
    """(set, lang, wav, reference): demo-voice sentences and ART questions in both languages."""
    out = []
    folder.mkdir(parents=True, exist_ok=True)
    for lang, texts in SENTENCES.items():
        for i, text in enumerate(texts):
            wav = folder / f"demo-{lang}-{i}.wav"
            speak_festival(text, out=wav) if lang == "ru" else speak(text, lang=lang, out=wav)
            out.append(("demo voices", lang, wav, text))
    for lang in ("ru", "en"):
        art = folder / f"art-{lang}"
        voice = {"question_voice": "festival"} if lang == "ru" else {}
        generate_art(
            art, n=max(1, per_lang // 3), tasks="SR,STI,TSR", workers=1, language=lang, seed=3, **voice
        )
        for line in (art / "manifest.jsonl").read_text(encoding="utf-8").splitlines()[:per_lang]:
            row = json.loads(line)
            out.append(("ART questions", lang, art / row["audio"], row["question"]))
    return out


def _asr(engine: Recognizer, clips: list[tuple[str, str, Path, str]]) -> tuple[float, dict[str, Any]]:
    seconds = sum(_audio_seconds(p) for _, _, p, _ in clips)
    started = time.perf_counter()
    quality: dict[str, Any] = {}
    for group, lang, path, ref in clips:
        heard = norm(engine.recognise(MediaRef(kind="audio", name="a", path=str(path)), language=None))
        want = norm(ref)
        if group == "ART questions":  # the question comes first; the stimulus after it is not scored
            heard = " ".join(heard.split()[: len(want.split())])
        quality.setdefault((group, lang), []).append((want, heard))
    rate = seconds / (time.perf_counter() - started)
    scores = {
        f"{g} {lang}": {
            "cer": round(jiwer.cer([w for w, _ in v], [h for _, h in v]), 3),
            "wer": round(jiwer.wer([w for w, _ in v], [h for _, h in v]), 3),
            "clips": len(v),
        }
        for (g, lang), v in quality.items()
    }
    return rate, scores


def _images(folder: Path, n: int) -> list[tuple[Path, str]]:
    demo_image_text(folder, n=n, seed=7)
    rows = [
        json.loads(x) for x in (folder / "demo_image_text.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    return [(folder / r["image"], r["kind"]) for r in rows]


def _ocr(engine: Recognizer, images: list[tuple[Path, str]]) -> float:
    started = time.perf_counter()
    for path, _ in images:
        engine.recognise(MediaRef(kind="image", name="i", path=str(path)), language=None)
    return len(images) / (time.perf_counter() - started)


def _ocr_cer(engine: Recognizer, folder: Path) -> dict[str, float]:
    """CER per kind against the text drawn (re-rendered here), over the words sorted."""
    from omnieval.benchmarks.demo import image_text

    out: dict[str, list[tuple[str, str]]] = {}
    import random

    for kind, draw in image_text._KINDS:
        for k in range(4):
            texts: list[str] = []
            img, _, _ = _capturing(draw, random.Random(100 + k), texts)
            path = folder / f"cer-{kind}-{k}.png"
            img.save(path)
            got = engine.recognise(MediaRef(kind="image", name="i", path=str(path)), language=None)
            # words sorted: a chart's labels are drawn bar by bar but read line by line (order is not error)
            out.setdefault(kind, []).append(
                (" ".join(sorted(norm(" ".join(texts)).split())), " ".join(sorted(norm(got).split())))
            )
    return {k: round(jiwer.cer([w for w, _ in v], [h for _, h in v]), 3) for k, v in out.items()}


def _capturing(draw: Any, rng: Any, texts: list[str]) -> Any:
    """Call a demo drawer while recording every text it draws (the OCR reference)."""
    from PIL import ImageDraw

    original = ImageDraw.ImageDraw.text

    def text(self: Any, xy: Any, value: str, *args: Any, **kwargs: Any) -> Any:
        texts.append(value)
        return original(self, xy, value, *args, **kwargs)

    ImageDraw.ImageDraw.text = text  # type: ignore[method-assign]
    try:
        return draw(rng)
    finally:
        ImageDraw.ImageDraw.text = original  # type: ignore[method-assign]


def _cache_cost(
    root: Path, clips: list[tuple[str, str, Path, str]], images: list[tuple[Path, str]]
) -> tuple[float, float]:
    """Seconds per media part: first pass (recognised) and second pass (cache hits), fresh backends each."""
    parts = [AudioPart(media=MediaRef(kind="audio", name="a", path=str(p))) for _, _, p, _ in clips]
    parts += [ImagePart(media=MediaRef(kind="image", name="i", path=str(p))) for p, _ in images]
    request = Request(task="t", sample_id="s", messages=(Message(role="user", content=tuple(parts)),))
    times = []
    for _ in range(2):
        clear_fingerprint_memo()
        backend = CascadeBackend(
            f"asr=whisper,ocr=tesseract,beam=1,cache_dir={root}/baseline/oracle", options=BackendOptions()
        )
        started = time.perf_counter()
        backend.convert(request)
        times.append((time.perf_counter() - started) / len(parts))
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--art-per-lang", type=int, default=6)
    parser.add_argument("--images", type=int, default=12)
    parser.add_argument("--ocr-only", action="store_true", help="skip speech (OCR speed and CER only)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clips = [] if args.ocr_only else _clips(root / "speech", args.art_per_lang)
        images = _images(root / "images", args.images)
        for beam in () if args.ocr_only else (1, 5):
            engine = recognizer(AsrStage(beam=beam), root=root)
            rate, quality = _asr(engine, clips)
            print(f"ASR whisper-base int8 beam {beam}: {rate:.2f} audio s/s over {len(clips)} clips")
            for name, q in quality.items():
                print(f"  {name:<18} CER {q['cer']:.3f}  WER {q['wer']:.3f}  ({q['clips']} clips)")
        ocr = recognizer(OcrStage(), root=root)
        print(f"OCR tesseract rus+eng: {_ocr(ocr, images):.2f} images/s over {len(images)} demo text images")
        print(f"OCR CER on the demo's text images by kind: {_ocr_cer(ocr, root / 'images')}")
        if args.ocr_only:
            return
        first, second = _cache_cost(root, clips[:6], images[:6])
        print(
            f"cache: first pass {first * 1000:.1f} ms per media part, second {second * 1000:.2f} ms "
            f"(ratio {second / first:.4f})"
        )


if __name__ == "__main__":
    main()
