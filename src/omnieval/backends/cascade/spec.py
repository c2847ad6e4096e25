"""The cascade model spec: perception stages in front of a text model.

Inline: ``cascade/asr=whisper[:PATH],ocr=tesseract[:LANGS][,KEY=VALUE...]/PROVIDER/NAME`` (the text
model is whatever follows the first ``/PROVIDER/`` whose provider is registered), or a YAML file,
``cascade/PATH.yaml``, holding the fields of :class:`CascadeSpec`. See docs/running/cascades.md.
``tts=festival`` (or ``espeak``) makes the cascade speak its answer (docs/running/spoken-answers.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from omnieval.errors import ConfigError
from omnieval.types._base import Frozen

__all__ = ["AsrStage", "CascadeSpec", "OcrStage", "parse_cascade"]

Wrap = Literal["auto", "ru", "en"]


class AsrStage(Frozen):
    """Speech recognition with faster-whisper (any CTranslate2 Whisper folder)."""

    engine: Literal["whisper"] = "whisper"
    model: str = "base"
    """A CTranslate2 Whisper folder, or ``base``: the Whisper base packaged on PyPI, assembled once."""
    beam: int = 5
    compute_type: str = "int8"
    language: str = "auto"
    """The spoken language hint (``auto``: Whisper detects it per clip, as ART's mixed-language audio
    needs)."""
    threads: int = 0
    """CPU threads for CTranslate2 (0: its default)."""
    fallback: bool = True
    """Whisper's temperature fallback (decode again, hotter, when a transcript repeats itself); off,
    one greedy-or-beam pass is kept, which bounds the time a looping transcript can take."""
    tokens_per_second: float | None = None
    """Cap on transcript tokens per second of audio (plus 20); ``None``: Whisper's own 448 per window."""


class OcrStage(Frozen):
    """Text recognition with Tesseract."""

    engine: Literal["tesseract"] = "tesseract"
    langs: str = "rus+eng"
    psm: int = 6
    """Tesseract page segmentation mode (6: one uniform block of text)."""


class CascadeSpec(Frozen):
    """A text model behind perception stages."""

    llm: str
    """The text model's spec, e.g. ``hf/PATH``."""
    asr: AsrStage | None = None
    ocr: OcrStage | None = None
    tts: Literal["festival", "espeak"] | None = None
    """A speech engine that reads the text model's answer aloud: the cascade then answers by voice
    (docs/running/spoken-answers.md)."""
    wrap: Wrap = "auto"
    """Wrapper language: ``auto`` follows the request's language (the sample's, else the task's)."""
    cache_dir: str | None = None
    """Where recognised text is cached by media hash (default: ``$OMNIEVAL_CACHE`` or ~/.cache/omnieval)."""


_INLINE_OPTIONS = {
    "beam": ("asr", "beam"),
    "compute_type": ("asr", "compute_type"),
    "asr_language": ("asr", "language"),
    "threads": ("asr", "threads"),
    "psm": ("ocr", "psm"),
    "wrap": (None, "wrap"),
    "tts": (None, "tts"),
    "cache_dir": (None, "cache_dir"),
}


def _stages(text: str, *, spec: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"cascade spec {spec!r}: {item!r} is not KEY=VALUE")
        if key in ("asr", "ocr"):
            engine, _, arg = value.partition(":")
            field = "model" if key == "asr" else "langs"
            out[key] = {**out.get(key, {}), "engine": engine, **({field: arg} if arg else {})}
        elif key in _INLINE_OPTIONS:
            stage, name = _INLINE_OPTIONS[key]
            if stage is None:
                out[name] = value
            else:
                out.setdefault(stage, {})[name] = value
        else:
            known = ", ".join(["asr", "ocr", *_INLINE_OPTIONS])
            raise ConfigError(f"cascade spec {spec!r}: unknown key {key!r} (known: {known})")
    return out


def _split_inline(name: str, *, providers: set[str]) -> tuple[str, str]:
    """``STAGES/PROVIDER/NAME`` → (STAGES, PROVIDER/NAME) at the first ``/`` followed by a registered
    provider."""
    for i, ch in enumerate(name):
        if ch == "/":
            provider = name[i + 1 :].partition("/")[0]
            if provider in providers and provider != "cascade" and "/" in name[i + 1 :]:
                return name[:i], name[i + 1 :]
    raise ConfigError(
        f"cascade spec 'cascade/{name}': no text model found; write "
        "cascade/asr=whisper,ocr=tesseract/PROVIDER/NAME "
        "or cascade/FILE.yaml"
    )


def parse_cascade(name: str, *, providers: set[str]) -> CascadeSpec:
    """The spec after ``cascade/``: inline stages and text model, or a YAML file."""
    try:
        if name.endswith((".yaml", ".yml")) and Path(name).is_file():
            import yaml

            data = yaml.safe_load(Path(name).read_text(encoding="utf-8")) or {}
            if not isinstance(data, dict):
                raise ConfigError(f"cascade model file {name}: expected a mapping")
            return CascadeSpec.model_validate(data)
        stages, llm = _split_inline(name, providers=providers)
        return CascadeSpec.model_validate({"llm": llm, **_stages(stages, spec=name)})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"cascade spec {name!r}: {problems}") from None
