"""Generators for the audio (spoken numbers) and video (moving square) demo tasks.

Audio is spoken by espeak-ng in Russian and English when the program is installed; without it the
generator falls back to counted beeps (``voice: auto``) and says so in every row
(``audio_source: tones``) and in the question, so results stay honest either way.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

from omnieval.benchmarks.demo._common import check_count, write_jsonl, write_manifest
from omnieval.errors import SourceError
from omnieval.sources.plugins import register_generator

__all__ = ["DIRECTIONS", "beeps", "demo_audio", "demo_video", "speak", "speak_festival"]

RATE = 16000
DIRECTIONS = (("left", "влево"), ("right", "вправо"), ("up", "вверх"), ("down", "вниз"))
"""Answer options of the video task, in presentation order (A-D)."""

_QUESTIONS = {
    "espeak-ng": ("Какое число произнесено в записи?", "Which number is spoken in the recording?"),
    "festival": ("Какое число произнесено в записи?", "Which number is spoken in the recording?"),
    "tones": ("Сколько звуковых сигналов в записи?", "How many beeps are in the recording?"),
}


def speak(text: str, *, lang: str, out: Path) -> bool:
    """Speak ``text`` into ``out`` (WAV) with espeak-ng; False when espeak-ng is not installed."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        return False
    done = subprocess.run(
        [exe, "-v", lang, "-s", "140", "-w", str(out), text], capture_output=True, check=False
    )
    if done.returncode != 0 or not out.is_file():
        raise SourceError(
            f"espeak-ng failed for {text!r} ({lang}): {done.stderr.decode(errors='replace')[:200]}"
        )
    return True


def speak_festival(text: str, *, out: Path) -> bool:
    """Speak Russian ``text`` into ``out`` (WAV) with Festival's ``festvox-ru`` voice (msu_ru_nsh_clunits),
    which the packaged Whisper base hears far better than espeak-ng's Russian; False when not installed."""
    exe = shutil.which("text2wave")
    if exe is None:
        return False
    cmd = [exe, "-eval", "(voice_msu_ru_nsh_clunits)", "-o", str(out)]
    done = subprocess.run(cmd, input=text.encode(), capture_output=True, check=False)
    if done.returncode != 0 or not out.is_file():
        why = done.stderr.decode(errors="replace")[:200]
        raise SourceError(f"festival failed for {text!r} (apt-get install festival festvox-ru): {why}")
    return True


def beeps(count: int, *, out: Path, freq: float = 880.0) -> None:
    """``count`` 0.12 s beeps separated by 0.18 s of silence, 16 kHz mono WAV."""
    import numpy as np
    import soundfile

    t = np.arange(int(0.12 * RATE)) / RATE
    tone = 0.4 * np.sin(2 * np.pi * freq * t) * np.hanning(t.size)
    gap = np.zeros(int(0.18 * RATE))
    pieces = [np.zeros(int(0.2 * RATE))]
    for _ in range(count):
        pieces += [tone, gap]
    soundfile.write(out, np.concatenate(pieces).astype("float32"), RATE, subtype="PCM_16")


def _audio_cache_key() -> str:
    """Generated audio differs with and without espeak-ng and Festival: part of the data cache key."""
    return ("espeak" if shutil.which("espeak-ng") else "tones") + (
        "+festival" if shutil.which("text2wave") else ""
    )


def _spoken(value: int, *, lang: str, voice: str, out: Path) -> str | None:
    """Speak ``value``: Russian with Festival (``auto`` when installed, or ``festival``), else espeak-ng;
    the program used, or None when none is installed (the caller falls back to beeps)."""
    if voice in ("auto", "festival") and lang == "ru" and speak_festival(str(value), out=out):
        return "festival"
    if speak(str(value), lang=lang, out=out):
        return "espeak-ng"
    return None


@register_generator("demo.audio")
def demo_audio(out_dir: Path, /, *, n: int = 20, seed: int = 0, voice: str = "auto") -> Path:
    """Spoken numbers (``voice: espeak``; ``festival``: Russian by Festival's festvox-ru voice, English
    by espeak-ng), counted beeps (``tones``), or the best installed
    (``auto``: Festival for Russian, espeak-ng)."""
    check_count("demo.audio", n)
    if voice not in ("auto", "espeak", "festival", "tones"):
        raise SourceError(
            f"demo.audio: voice must be auto, espeak, festival or tones, not {voice!r}", field="voice"
        )
    if voice in ("espeak", "festival") and shutil.which("espeak-ng") is None:
        raise SourceError(
            f"demo.audio: voice {voice!r} needs espeak-ng installed (apt-get install espeak-ng)"
        )
    if voice == "festival" and shutil.which("text2wave") is None:
        raise SourceError("demo.audio: voice 'festival' needs Festival (apt-get install festival festvox-ru)")
    rng = random.Random(seed)
    out = Path(out_dir)
    (out / "audio").mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n):
        lang = ("ru", "en")[i % 2]
        rel = f"audio/clip-{i:03d}.wav"
        value = rng.randint(1, 20)
        source = _spoken(value, lang=lang, voice=voice, out=out / rel) if voice != "tones" else None
        if source is None:
            source = "tones"
            value = 1 + value % 6
            beeps(value, out=out / rel)
        ru, en = _QUESTIONS[source]
        rows.append(
            {
                "id": f"audio-{i:03d}",
                "audio": rel,
                "answer": str(value),
                "lang": lang,
                "audio_source": source,
                "question_ru": ru,
                "question_en": en,
            }
        )
    write_manifest(
        out,
        [
            {
                "id": r["id"],
                "task": "demo_audio",
                "answer_type": "number",
                "answer": r["answer"],
                "question": f"{r['question_ru']} Ответь одним числом.",
                "audio": r["audio"],
            }
            for r in rows
        ],
    )
    return write_jsonl(out / "demo_audio.jsonl", rows)


_FRAMES, _FPS = 16, 8
_VIDEO_QUESTION = (
    "Куда движется красный квадрат?\n"
    + "".join(f"{letter}. {ru}\n" for letter, (_, ru) in zip("ABCD", DIRECTIONS, strict=True))
    + "Ответь буквой варианта."
)


def _write_video(
    path: Path, direction: str, *, size: int = 64, frames: int = _FRAMES, fps: int = _FPS
) -> None:
    """A red square crossing a white frame in ``direction`` (MPEG-4 Part 2, readable everywhere)."""
    import av
    from PIL import Image, ImageDraw

    side = 12
    with av.open(str(path), "w") as container:
        stream: Any = container.add_stream("mpeg4", rate=fps)
        stream.width, stream.height, stream.pix_fmt = size, size, "yuv420p"
        for k in range(frames):
            pos = round(k * (size - side) / (frames - 1))
            pos = pos if direction in ("right", "down") else size - side - pos
            x, y = (pos, (size - side) // 2) if direction in ("left", "right") else ((size - side) // 2, pos)
            img = Image.new("RGB", (size, size), "white")
            ImageDraw.Draw(img).rectangle((x, y, x + side - 1, y + side - 1), fill=(220, 30, 30))
            for packet in stream.encode(av.VideoFrame.from_image(img)):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


@register_generator("demo.video")
def demo_video(out_dir: Path, /, *, n: int = 16, seed: int = 0) -> Path:
    """Short clips of a square moving left, right, up or down; the answer is the option letter."""
    check_count("demo.video", n)
    rng = random.Random(seed)
    out = Path(out_dir)
    (out / "video").mkdir(parents=True, exist_ok=True)
    order = [i % len(DIRECTIONS) for i in range(n)]
    rng.shuffle(order)
    rows = []
    for i, which in enumerate(order):
        rel = f"video/move-{i:03d}.mp4"
        _write_video(out / rel, DIRECTIONS[which][0])
        rows.append(
            {
                "id": f"video-{i:03d}",
                "video": rel,
                "answer": "ABCD"[which],
                "direction": DIRECTIONS[which][0],
                "choices": [en for en, _ in DIRECTIONS],
                "choices_ru": [ru for _, ru in DIRECTIONS],
            }
        )
    write_manifest(
        out,
        [
            {
                "id": r["id"],
                "task": "demo_video",
                "answer_type": "word",
                "answer": r["answer"],
                "question": _VIDEO_QUESTION,
                "video": r["video"],
                "data": {"fps": _FPS, "seconds": _FRAMES / _FPS},
            }
            for r in rows
        ],
    )
    return write_jsonl(out / "demo_video.jsonl", rows)


demo_audio.cache_key = _audio_cache_key  # type: ignore[attr-defined]
