"""Tolerance for the schema variants a real MERA dataset copy may use (see docs/benchmarks/mera.md).

The published schema (HF cards, the repo's ``dataset_meta.json``) fixes the field names but leaves
representations open: ``meta.id`` as int or string, an ``Audio`` feature stored ``{bytes, path}`` or
decoded ``{array, sampling_rate}``, video as a path string or bytes, options as ``option_a..``
columns or one list, Cyrillic option letters in ruTiE golds. Each helper here maps one such variant
onto the form the rest of the importer expects, or says why it cannot.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "CYRILLIC",
    "LATIN",
    "decode_mapping",
    "dialogue_position",
    "encode_wav",
    "looks_like_media",
    "mc_targets",
    "media_source",
    "normalize_id",
    "normalize_inputs",
    "option_values",
    "resolve_media_path",
    "rutie_fallback_id",
    "slu_outputs",
]

LATIN = "ABCDEFG"
CYRILLIC = "АБВГДЕЖ"
"""Option letters by position: Cyrillic ``В`` is the THIRD option (C), not a look-alike of B."""

_OPTION_LISTS = ("options", "choices", "answer_options")
_DIALOG_KEYS = ("dialog_id", "dialogue_id", "dialog")
_TURN_KEYS = ("question_id", "turn_id", "turn")
_MEDIA_SUFFIXES = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".webp",
        ".gif",
        ".bmp",
        ".tif",
        ".tiff",
        ".wav",
        ".mp3",
        ".flac",
        ".ogg",
        ".m4a",
        ".opus",
        ".mp4",
        ".webm",
        ".mkv",
        ".avi",
        ".mov",
    ]
)
_MEDIA_DIRS = ("", "samples", "videos", "video", "images", "audio", "media", "data")


def decode_mapping(value: Any) -> Any:
    """``inputs``/``meta`` serialised as a JSON string (a flattened export) → the mapping itself."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    if isinstance(value, list) and all(isinstance(p, tuple | list) and len(p) == 2 for p in value):
        return {str(k): v for k, v in value}  # an Arrow map<string, ...> column reads as pairs
    return value


def normalize_id(raw: Any) -> str | None:
    """``meta.id`` as the sample id, ``str(meta.id)``; an integral float (a pandas upcast of the
    published int32) reads as the int it was (``7.0`` → ``7``). Strings are kept exactly."""
    if raw is None or isinstance(raw, bool):
        return None
    if isinstance(raw, float):
        return str(int(raw)) if raw.is_integer() else None
    text = str(raw)
    return text if text.strip() else None


def normalize_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    """Options given as one list (``options``/``choices``) become ``option_a``, ``option_b``, ..."""
    out = dict(inputs)
    if any(k.startswith("option_") for k in out):
        return out
    for key in _OPTION_LISTS:
        value = out.get(key)
        if isinstance(value, list | tuple) and value and all(isinstance(v, str | int | float) for v in value):
            for i, option in enumerate(value):
                out[f"option_{chr(ord('a') + i)}"] = str(option)
            break
    return out


def option_values(inputs: dict[str, Any]) -> tuple[str, ...]:
    """The non-empty ``option_a``, ``option_b``, ... values in letter order (any count)."""
    found: list[str] = []
    for i in range(26):
        value = inputs.get(f"option_{chr(ord('a') + i)}")
        if value is None:
            if f"option_{chr(ord('a') + i)}" not in inputs:
                break
            continue
        if str(value).strip():
            found.append(str(value))
    return tuple(found)


def mc_targets(outputs: str) -> tuple[str, ...]:
    """A gold option letter plus its other-alphabet twin by position (``Б`` ↔ ``B``, ``В`` ↔ ``C``).

    Stray spaces and lowercase are kept in the first target (EM normalises them); the twin is added
    only when the gold is one bare letter, so a free-text gold is never rewritten.
    """
    letter = outputs.strip().rstrip(".)").upper()
    if len(letter) != 1:
        return (outputs,)
    if letter in LATIN:
        return (outputs, CYRILLIC[LATIN.index(letter)])
    if letter in CYRILLIC:
        return (outputs, LATIN[CYRILLIC.index(letter)])
    return (outputs,)


def slu_outputs(outputs: Any) -> Any:
    """RuSLUn gold as a structure: Arrow's all-keys slot structs lose their null keys; a JSON string stays."""
    if not isinstance(outputs, dict):
        return outputs
    slots = outputs.get("slots")
    if isinstance(slots, list):
        slots = [{k: v for k, v in s.items() if v is not None} if isinstance(s, dict) else s for s in slots]
    elif isinstance(slots, dict):
        slots = [{k: v} for k, v in slots.items() if v is not None]
    return {**outputs, "slots": slots if slots is not None else []}


def encode_wav(array: Any, sampling_rate: int) -> bytes:
    """A decoded ``Audio`` value (``{array, sampling_rate}``) back to WAV bytes for the media stage."""
    import io

    import numpy as np
    import soundfile as sf

    buffer = io.BytesIO()
    sf.write(buffer, np.asarray(array, dtype=np.float32), int(sampling_rate), format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def looks_like_media(key: str, value: Any) -> bool:
    """A media value outside the catalogue's fields: a media struct, raw bytes, or a media file name
    under a key that names a medium (``video_2: "x.mp4"``; ``hint: "фото.png"`` stays text)."""
    if isinstance(value, dict):
        return bool({"bytes", "path", "array"} & set(value))
    if isinstance(value, bytes):
        return True
    if key.split("_")[0] not in ("image", "audio", "video") or not isinstance(value, str):
        return False
    if any(ch.isspace() for ch in value.strip()):
        return False  # a sentence that ends in "photo.png" is text, not a file
    return Path(value.strip()).suffix.lower() in _MEDIA_SUFFIXES


def media_source(value: Any) -> bytes | str | None:
    """Bytes or a path string from any stored media form; ``None`` when absent; raises ``TypeError``."""
    if value is None or value in ("", {}, b""):
        return None
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if value.get("bytes"):
            return bytes(value["bytes"])
        if value.get("array") is not None:
            if not value.get("sampling_rate"):
                raise TypeError("decoded audio {array} without sampling_rate")
            return encode_wav(value["array"], value["sampling_rate"])
        path = value.get("path") or value.get("src") or value.get("filename")
        return str(path) if path else None
    raise TypeError(
        f"expected media bytes, a {{bytes, path}} struct or a file path, got {type(value).__name__}"
    )


def resolve_media_path(value: str, *, dataset_dir: Path, data_file: Path) -> Path | None:
    """A media path as written in a row: absolute, relative to the dataset folder or to the data file,
    or (for paths from the uploader's machine) the same file name under a usual media subfolder."""
    path = Path(value)
    if path.is_absolute():
        if path.is_file():
            return path
        path = Path(path.name)
    candidates = [dataset_dir / path, data_file.parent / path]
    candidates += [dataset_dir / sub / path.name for sub in _MEDIA_DIRS]
    return next((c for c in candidates if c.is_file()), None)


def dialogue_position(meta: dict[str, Any]) -> tuple[int, int] | None:
    """``(dialogue, turn)`` from explicit meta keys (``dialog_id``/``question_id`` and spellings)."""
    dialog = next((meta[k] for k in _DIALOG_KEYS if meta.get(k) is not None), None)
    turn = next((meta[k] for k in _TURN_KEYS if meta.get(k) is not None), None)
    if dialog is None or turn is None:
        return None
    try:
        return int(dialog), int(turn)
    except (TypeError, ValueError):
        return None


def rutie_fallback_id(meta: dict[str, Any]) -> str | None:
    """MERA's packer id when a ruTiE row has no ``meta.id``: ``question_id + 500*dialog_id + 11``."""
    position = dialogue_position(meta)
    return None if position is None else str(position[1] + 500 * position[0] + 11)
