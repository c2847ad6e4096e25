"""``tts/festival`` and ``tts/espeak``: local speech engines as models that answer by voice.

They read the request's user text aloud (a system message is an instruction, not read) in the
request's language (the sample's, else the task's): Festival with its Russian voice
``msu_ru_nsh_clunits`` (Debian ``festival festvox-ru``; it has no English voice here), espeak-ng with
its ``ru``/``en`` voices. The answer is a WAV file (:class:`~omnieval.types.AudioAnswer`); the run hears
it (docs/running/spoken-answers.md). These are the baselines of the ``speech-output`` group and what
makes the whole spoken-answer path testable on a CPU.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from functools import cache
from typing import Any, ClassVar

from omnieval.backends.base import Backend, BackendOptions, register_backend
from omnieval.errors import BackendError, ConfigError
from omnieval.types import AudioAnswer, Request, Response

__all__ = [
    "ENGINES",
    "TtsBackend",
    "check_engine",
    "engine_version",
    "speakable_text",
    "spoken_language",
    "synthesize",
]

ENGINES = ("festival", "espeak")
FESTIVAL_VOICES = {"ru": "msu_ru_nsh_clunits"}
"""Festival voice per language (the ones Debian packages here: festvox-ru)."""
_FESTIVAL_DIR = "/usr/share/festival/voices/russian/msu_ru_nsh_clunits"
ESPEAK_SPEED = 150
"""Words per minute for espeak-ng (its default 175 is hard to follow in Russian)."""


def spoken_language(language: str | None) -> str:
    """``ru`` or ``en``: the language an answer is spoken and heard in (Russian unless said otherwise)."""
    return "ru" if (language or "ru").lower().startswith("ru") else "en"


def check_engine(engine: str) -> None:
    """Fail before any request when the engine or its voice is not installed."""
    if engine not in ENGINES:
        raise ConfigError(f"tts/{engine}: unknown speech engine (known: {', '.join(ENGINES)})")
    if engine == "festival" and (shutil.which("text2wave") is None or not os.path.isdir(_FESTIVAL_DIR)):
        raise ConfigError(
            "tts/festival: needs Festival and its Russian voice (apt-get install festival festvox-ru)"
        )
    if engine == "espeak" and shutil.which("espeak-ng") is None:
        raise ConfigError("tts/espeak: needs espeak-ng (apt-get install espeak-ng)")


@cache
def engine_version(engine: str) -> str:
    """The installed engine's own version line (recorded in the manifest)."""
    cmd = ["festival", "--version"] if engine == "festival" else ["espeak-ng", "--version"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (done.stdout or done.stderr).strip().split("Data at")[0].strip()


def synthesize(text: str, *, engine: str, language: str) -> bytes:
    """``text`` spoken by ``engine`` in ``language``, as WAV bytes; BackendError says why not."""
    lang = spoken_language(language)
    if engine == "festival":
        voice = FESTIVAL_VOICES.get(lang)
        if voice is None:
            raise BackendError(
                f"tts/festival has no {lang!r} voice installed (only Russian)", retryable=False
            )
        cmd = ["text2wave", "-eval", f"(voice_{voice})", "-o", "/dev/stdout"]
        done = subprocess.run(cmd, input=text.encode(), capture_output=True, check=False)
    else:
        cmd = ["espeak-ng", "-v", lang, "-s", str(ESPEAK_SPEED), "--stdout", text]
        done = subprocess.run(cmd, capture_output=True, check=False)
    if done.returncode != 0 or done.stdout[:4] != b"RIFF":
        why = done.stderr.decode(errors="replace")[:200]
        raise BackendError(f"tts/{engine} failed for {text[:60]!r} ({lang}): {why}", retryable=False)
    return _fixed_sizes(done.stdout)


def _fixed_sizes(wav: bytes) -> bytes:
    """A WAV written to a pipe has no sizes in its header (espeak-ng leaves them 0 or 0x7fffffff): fill
    them in from the bytes received, so every reader sees the same length."""
    at = wav.find(b"data", 12)
    if at < 0:
        return wav
    data_size = len(wav) - at - 8
    return (
        wav[:4]
        + (len(wav) - 8).to_bytes(4, "little")
        + wav[8 : at + 4]
        + data_size.to_bytes(4, "little")
        + wav[at + 8 :]
    )


def speakable_text(request: Request) -> str:
    """What a speech engine reads: the user turns' text (the last one), system messages left out."""
    users = [m for m in request.messages if m.role == "user"]
    if not users:
        raise BackendError(
            f"tts: sample {request.sample_id!r} has no user message to read aloud", retryable=False
        )
    text = users[-1].text.strip()
    if not text:
        raise BackendError(f"tts: sample {request.sample_id!r} has an empty text to read", retryable=False)
    return text


@register_backend("tts")
class TtsBackend(Backend):
    """A local speech engine answering every request by reading its text aloud."""

    modalities: ClassVar[frozenset[str]] = frozenset({"text"})

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        check_engine(model)

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "kind": "speech engine",
            "engine_version": engine_version(self.model),
            "voices": FESTIVAL_VOICES if self.model == "festival" else {"ru": "ru", "en": "en"},
        }

    def max_connections(self) -> int:
        return max(1, min(self.options.concurrency, os.cpu_count() or 1))

    async def generate(self, request: Request) -> Response:
        text = speakable_text(request)
        started = time.perf_counter()
        wav = await asyncio.to_thread(
            synthesize, text, engine=self.model, language=spoken_language(request.language)
        )
        latency = time.perf_counter() - started
        return Response(text="", latency_s=latency, audio=AudioAnswer.of(wav, format="wav"))
