"""espeak-ng voices: availability checks before generation, synthesis to 16 kHz float arrays.

A voice is ``LANGUAGE+VARIANT`` (``en-gb-scotland+m8``) as ``espeak-ng -v`` takes it. Both parts are
checked against what the installed espeak-ng lists, so a missing language or variant fails before any
file is written. Synthesis is deterministic (espeak-ng is a rule-based formant synthesizer).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

import numpy as np

from omnieval.benchmarks.art.dsp import RATE, edge_fades, normalize, resample
from omnieval.errors import SourceError

__all__ = [
    "FESTIVAL",
    "check_voice",
    "espeak_version",
    "installed_voices",
    "share_between_processes",
    "speak",
]


def _exe() -> str:
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SourceError("art: espeak-ng is not installed (apt-get install espeak-ng); ART speech needs it")
    return exe


def _list(arg: str) -> list[list[str]]:
    done = subprocess.run([_exe(), arg], capture_output=True, text=True, check=False)
    return [line.split() for line in done.stdout.splitlines()[1:] if line.split()]


@cache
def installed_voices() -> tuple[frozenset[str], frozenset[str]]:
    """(languages, variants) the installed espeak-ng offers."""
    languages = frozenset(cols[1] for cols in _list("--voices") if len(cols) > 1)
    variants = frozenset(cols[-1].rsplit("/", 1)[-1] for cols in _list("--voices=variant") if "/" in cols[-1])
    return languages, variants


@cache
def espeak_version() -> str:
    done = subprocess.run([_exe(), "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip().split("Data at")[0].strip()


FESTIVAL = "festival"
"""The voice name that selects Festival's Russian voice (``festvox-ru``, msu_ru_nsh_clunits) instead of
espeak-ng: far more natural Russian, which speech recognisers (a cascade's Whisper) hear much better."""
_FESTIVAL_VOICES = "/usr/share/festival/voices/russian/msu_ru_nsh_clunits"


def check_voice(voice: str, *, what: str, language: str = "en") -> None:
    """Raise a clear error when the language or the variant of ``voice`` is not installed."""
    if voice == FESTIVAL:
        if language != "ru":
            raise SourceError(
                f"art: {what}: voice 'festival' is Festival's Russian voice; use it with language=ru"
            )
        if shutil.which("text2wave") is None or not Path(_FESTIVAL_VOICES).is_dir():
            raise SourceError(
                f"art: {what}: voice 'festival' needs Festival (apt-get install festival festvox-ru)"
            )
        return
    languages, variants = installed_voices()
    language, _, variant = voice.partition("+")
    if language not in languages:
        raise SourceError(
            f"art: {what}: espeak-ng has no language {language!r} (voice {voice!r}); "
            f"`espeak-ng --voices` lists the installed ones"
        )
    if variant and variant not in variants:
        raise SourceError(
            f"art: {what}: espeak-ng has no voice variant {variant!r} (voice {voice!r}); "
            f"`espeak-ng --voices=variant` lists them"
        )


_SHARED: dict[str, Path] = {}


def share_between_processes(folder: Path | None) -> None:
    """Keep synthesized speech in ``folder`` too, so parallel workers synthesize each clip about once."""
    _SHARED.clear()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        _SHARED["dir"] = folder


@cache
def speak(text: str, *, voice: str, speed: int = 150, pitch: int = 50) -> np.ndarray:
    """``text`` spoken by ``voice`` at 16 kHz, normalised to -20 dBFS with 10 ms edge fades (read-only)."""
    folder = _SHARED.get("dir")
    if folder is None:
        out = _synthesize(text, voice=voice, speed=speed, pitch=pitch)
    else:
        key = hashlib.sha256(json.dumps([text, voice, speed, pitch]).encode()).hexdigest()[:24]
        path = folder / f"{key}.npy"
        if path.exists():
            out = np.load(path)
        else:
            out = _synthesize(text, voice=voice, speed=speed, pitch=pitch)
            tmp = folder / f"{key}.{os.getpid()}.tmp.npy"
            np.save(tmp, out)
            os.replace(tmp, path)
    out.setflags(write=False)
    return out


def _festival(text: str) -> subprocess.CompletedProcess[bytes]:
    """Festival's Russian voice (speed and pitch are the voice's own); the WAV on stdout like espeak-ng's."""
    cmd = ["text2wave", "-eval", "(voice_msu_ru_nsh_clunits)", "-o", "/dev/stdout"]
    return subprocess.run(cmd, input=text.encode(), capture_output=True, check=False)


def _synthesize(text: str, *, voice: str, speed: int, pitch: int) -> np.ndarray:
    if voice == FESTIVAL:
        done = _festival(text)
    else:
        cmd = [_exe(), "-v", voice, "-s", str(speed), "-p", str(pitch), "--stdout", text]
        done = subprocess.run(cmd, capture_output=True, check=False)
    data = done.stdout
    at = data.find(b"data", 12)
    if done.returncode != 0 or data[:4] != b"RIFF" or at < 0:
        raise SourceError(
            f"art: {'festival' if voice == FESTIVAL else 'espeak-ng'} failed for voice {voice!r}, text "
            f"{text[:60]!r}: "
            f"{done.stderr.decode(errors='replace')[:200]}"
        )
    rate = int.from_bytes(data[24:28], "little")
    pcm = np.frombuffer(data[at + 8 :], dtype="<i2")[: (len(data) - at - 8) // 2].astype(np.float64) / 32768
    nonzero = np.flatnonzero(np.abs(pcm) > 1e-3)
    if nonzero.size:
        pcm = pcm[max(nonzero[0] - 80, 0) : nonzero[-1] + 80]
    return edge_fades(normalize(resample(pcm, rate, RATE)))
