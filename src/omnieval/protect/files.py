"""Marking and detecting over a whole dataset folder, written atomically."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
from PIL import Image

from omnieval.errors import ConfigError, MediaError
from omnieval.media.audio import decode_audio
from omnieval.media.image import decode_image
from omnieval.protect.audio_mark import DEFAULT_SNR_DB, detect_audio, embed_audio
from omnieval.protect.audioseal_mark import AudioSealMarker
from omnieval.protect.detection import DEFAULT_THRESHOLD, Detection
from omnieval.protect.image_invisible import detect_image, embed_image
from omnieval.protect.tables import CellFn, Media, iter_media_cells, mark_table_file
from omnieval.protect.video_mark import mark_video
from omnieval.protect.visible import Overlay, apply_overlay, render_overlay
from omnieval.store.staging import staged_dir

__all__ = ["IMAGE_SUFFIXES", "Kind", "MarkSettings", "detect_tree", "mark_tree"]

Kind = Literal["image-visible", "image-invisible", "audio", "video"]
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff"})
AUDIO_SUFFIXES = frozenset({".wav", ".flac", ".ogg"})
VIDEO_SUFFIXES = frozenset({".mp4", ".mkv", ".webm", ".avi", ".mov"})
TABLE_SUFFIXES = frozenset({".parquet", ".arrow"})
"""Tables whose media columns are marked cell by cell (Parquet, and HF ``save_to_disk`` Arrow shards)."""
UNSUPPORTED = {
    "image": frozenset({".gif", ".heic", ".heif", ".avif", ".svg", ".jp2"}),
    "audio": frozenset({".mp3", ".m4a", ".aac", ".opus", ".wma", ".amr"}),
    "video": frozenset({".flv", ".wmv", ".mpg", ".mpeg", ".3gp", ".ts"}),
}
"""Media of the kind that cannot be re-written faithfully here: refused up front, never copied unmarked."""


def _suffixes(kind: str) -> frozenset[str]:
    """The media files a ``--kind`` marks or checks."""
    return {"audio": AUDIO_SUFFIXES, "video": VIDEO_SUFFIXES}.get(kind, IMAGE_SUFFIXES)


class MarkSettings:
    """Everything a mark needs, checked once before any file is touched."""

    def __init__(
        self,
        *,
        kind: Kind,
        key: str | None,
        overlay: Overlay | None,
        strength: float = 4.0,
        snr_db: float = DEFAULT_SNR_DB,
        audioseal: AudioSealMarker | None = None,
    ) -> None:
        self.audioseal = audioseal
        if kind == "audio" and audioseal is not None:
            key = key or None
        elif kind in ("image-invisible", "audio") and not key:
            raise ConfigError(f"--kind {kind} needs --key (the secret the detector will need)")
        if kind == "image-visible" and overlay is None:
            raise ConfigError("--kind image-visible needs --text or --logo")
        if kind == "video" and overlay is None and not key:
            raise ConfigError(
                "--kind video needs --text or --logo (a visible mark), --key (an invisible one), or both"
            )
        if overlay is not None and kind != "audio":
            overlay.check()
        self.kind, self.key, self.overlay, self.strength, self.snr_db = kind, key, overlay, strength, snr_db

    @property
    def suffixes(self) -> frozenset[str]:
        return _suffixes(self.kind)

    def image_fn(self) -> Callable[[Image.Image], Image.Image]:
        """The per-image (or per-frame) transformation for this kind."""
        layers: dict[tuple[int, int], Image.Image] = {}

        def mark(img: Image.Image) -> Image.Image:
            if self.overlay is not None:
                layer = layers.get(img.size) or layers.setdefault(
                    img.size, render_overlay(self.overlay, img.size)
                )
                img = apply_overlay(img, layer)
            if self.key and self.kind != "image-visible":
                img = embed_image(img, key=self.key, strength=self.strength)
            return img

        return mark


def _media_files(root: Path, suffixes: frozenset[str]) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in suffixes | TABLE_SUFFIXES)


def _read_image(path: Path) -> Image.Image:
    with path.open("rb") as fh:
        img, _ = decode_image(fh, where=str(path), max_side=None, max_pixels=None)
    return img


def _save_image(img: Image.Image, target: Path, *, like: Path) -> None:
    with Image.open(like) as original:
        fmt, info = original.format or "PNG", original.info
    options: dict[str, Any] = {k: info[k] for k in ("icc_profile", "exif", "dpi") if k in info}
    if fmt == "JPEG":
        options["quality"] = 95
        img = img.convert("RGB")
    img.save(target, format=fmt, **options)


def _marked_audio(data: np.ndarray, rate: int, settings: MarkSettings) -> np.ndarray:
    if settings.audioseal is not None:
        return settings.audioseal.embed(data, rate)
    return embed_audio(data, rate, key=settings.key or "", snr_db=settings.snr_db)


def _mark_audio(path: Path, target: Path, settings: MarkSettings) -> None:
    import soundfile

    with path.open("rb") as fh:
        data, rate, info = decode_audio(fh, where=str(path))
    soundfile.write(
        str(target), _marked_audio(data, rate, settings), rate, subtype=info["subtype"], format=info["format"]
    )


def _image_cell_fn(settings: MarkSettings) -> CellFn:
    mark = settings.image_fn()

    def convert(raw: bytes, where: str) -> bytes:
        img, info = decode_image(io.BytesIO(raw), where=where, max_side=None, max_pixels=None)
        out = io.BytesIO()
        fmt = info.get("format") or "PNG"
        marked = mark(img)
        (marked.convert("RGB") if fmt == "JPEG" else marked).save(
            out, format=fmt, **({"quality": 95} if fmt == "JPEG" else {})
        )
        return out.getvalue()

    return convert


def _audio_cell_fn(settings: MarkSettings) -> CellFn:
    """Audio cells (HF ``Audio`` features) are decoded, marked and written back in their own format and
    subtype."""
    import soundfile

    def convert(raw: bytes, where: str) -> bytes:
        data, rate, info = decode_audio(io.BytesIO(raw), where=where)
        out = io.BytesIO()
        try:
            soundfile.write(
                out, _marked_audio(data, rate, settings), rate, subtype=info["subtype"], format=info["format"]
            )
        except (soundfile.LibsndfileError, RuntimeError, TypeError, ValueError) as exc:
            raise MediaError(f"cannot write {info['format']} audio back: {exc}", path=where) from None
        return out.getvalue()

    return convert


def _mark_table_file(path: Path, target: Path, settings: MarkSettings) -> int:
    """Mark the image (or, for --kind audio, audio) columns of a Parquet or Arrow file; video kinds copy
    it."""
    if settings.kind == "video":
        shutil.copy2(path, target)
        return 0
    if settings.kind == "audio":
        return mark_table_file(path, target, media="audio", convert=_audio_cell_fn(settings))
    return mark_table_file(path, target, media="image", convert=_image_cell_fn(settings))


def _refuse_non_empty(output: Path) -> None:
    if output.exists() and any(output.iterdir()):
        raise ConfigError(f"output folder {output} exists and is not empty; choose a new one")


def _refuse_unsupported(source: Path, kind: str) -> None:
    """Media of the kind in a format we cannot handle stops the run up front, naming the first such file."""
    media, suffixes = kind.split("-")[0], _suffixes(kind)
    files = [source] if source.is_file() else source.rglob("*")
    unsupported = sorted(p for p in files if p.is_file() and p.suffix.lower() in UNSUPPORTED[media])
    if unsupported:
        raise MediaError(
            f"unsupported {media} format {unsupported[0].suffix!r} ({len(unsupported)} file(s)); "
            f"convert to {', '.join(sorted(suffixes))} first",
            path=str(unsupported[0]),
        )


def mark_tree(source: Path, output: Path, settings: MarkSettings) -> dict[str, Any]:
    """Copy ``source`` to ``output`` with every media file of the kind marked; other files unchanged."""
    if not source.is_dir():
        raise ConfigError(f"--input {source} is not a folder")
    _refuse_unsupported(source, settings.kind)
    candidates = _media_files(source, settings.suffixes)
    if not candidates:
        raise MediaError(
            f"no {settings.kind.split('-')[0]} files ({', '.join(sorted(settings.suffixes))}) or Parquet",
            path=str(source),
        )
    counts = {"marked": 0, "copied": 0, "parquet_cells": 0}
    _refuse_non_empty(output)
    with staged_dir(output) as tmp:
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            target = tmp / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            suffix = path.suffix.lower()
            if suffix in TABLE_SUFFIXES:
                counts["parquet_cells"] += _mark_table_file(path, target, settings)
                continue
            if suffix not in settings.suffixes:
                shutil.copy2(path, target)
                counts["copied"] += 1
                continue
            if settings.kind == "audio":
                _mark_audio(path, target, settings)
            elif settings.kind == "video":
                mark_video(path, target, frame_fn=settings.image_fn())
            else:
                _save_image(settings.image_fn()(_read_image(path)), target, like=path)
            counts["marked"] += 1
    return {"kind": settings.kind, "input": str(source), "output": str(output), **counts}


def _detect_bytes(
    raw: bytes | Path, *, where: str, kind: str, key: str, threshold: float, audioseal: AudioSealMarker | None
) -> Detection:
    with raw.open("rb") if isinstance(raw, Path) else io.BytesIO(raw) as fh:
        if kind == "audio":
            data, rate, _ = decode_audio(fh, where=where)
            if audioseal is not None:
                return audioseal.detect(data, rate)
            return detect_audio(data, rate, key=key, threshold=threshold)
        img, _ = decode_image(fh, where=where, max_side=None, max_pixels=None)
    return detect_image(img, key=key, threshold=threshold)


def _detect_targets(source: Path, kind: str) -> Iterator[tuple[str, bytes | Path, str]]:
    """``(report path, file or cell bytes, where for errors)``: media files, then the media cells of
    tables."""
    if source.is_file():
        yield source.name, source, str(source)
        return
    media: Media = "audio" if kind == "audio" else "image"
    for path in _media_files(source, _suffixes(kind)):
        rel = path.relative_to(source).as_posix()
        if path.suffix.lower() not in TABLE_SUFFIXES:
            yield rel, path, str(path)
            continue
        for cell, raw in iter_media_cells(path, media=media):
            yield f"{rel}:{cell}", raw, f"{path} ({cell})"


def _signal(raw: bytes | Path, *, where: str, kind: str) -> np.ndarray:
    """The decoded samples (audio) or pixels (images) of a file or cell, as float64."""
    with raw.open("rb") if isinstance(raw, Path) else io.BytesIO(raw) as fh:
        if kind == "audio":
            return decode_audio(fh, where=where)[0].astype(np.float64)
        img, _ = decode_image(fh, where=where, max_side=None, max_pixels=None)
    return np.asarray(img.convert("RGB"), dtype=np.float64)


def _snr_db(marked: np.ndarray, original: np.ndarray, *, where: str) -> float | None:
    """Signal-to-mark ratio in dB of a marked file against its original (None when they are identical)."""
    if marked.shape != original.shape:
        raise MediaError(f"shape {marked.shape} differs from the reference's {original.shape}", path=where)
    mark_energy = float(np.sum((marked - original) ** 2))
    return round(10 * np.log10(float(np.sum(original**2)) / mark_energy), 2) if mark_energy else None


def _reference_signals(reference: Path, kind: str) -> dict[str, tuple[bytes | Path, str]]:
    if not reference.exists():
        raise ConfigError(f"--reference {reference} does not exist")
    return {rel: (raw, where) for rel, raw, where in _detect_targets(reference, kind)}


def detect_tree(
    source: Path,
    *,
    kind: str,
    key: str | None,
    threshold: float = DEFAULT_THRESHOLD,
    audioseal: AudioSealMarker | None = None,
    reference: Path | None = None,
) -> dict[str, Any]:
    """The fixed report ``{"n", "detected", "files": [{"path", "detected", "confidence"}]}`` over every media
    file
    under ``source`` (and every media cell of its Parquet/Arrow tables, as ``FILE:COLUMN[ROW]``).

    With ``reference`` (the unmarked originals, same relative paths) every file also gets ``snr_db``: how far
    the mark lies below the signal, measured rather than taken from the setting."""
    if kind not in ("image-invisible", "audio"):
        raise ConfigError(f"detection is for --kind image-invisible or audio, not {kind!r}")
    if audioseal is not None and kind != "audio":
        raise ConfigError("AudioSeal detects audio marks only")
    if not key and audioseal is None:
        raise ConfigError("--key is required for detection")
    if not source.exists():
        raise ConfigError(f"--input {source} does not exist")
    _refuse_unsupported(source, kind)
    originals = _reference_signals(reference, kind) if reference is not None else None
    files = []
    for rel, raw, where in _detect_targets(source, kind):
        found = _detect_bytes(
            raw, where=where, kind=kind, key=key or "", threshold=threshold, audioseal=audioseal
        )
        row: dict[str, Any] = {"path": rel, "detected": found.detected, "confidence": found.confidence}
        if originals is not None:
            if rel not in originals:
                raise MediaError(f"no original {rel} under --reference {reference}", path=where)
            original = _signal(originals[rel][0], where=originals[rel][1], kind=kind)
            row["snr_db"] = _snr_db(_signal(raw, where=where, kind=kind), original, where=where)
        files.append(row)
    if not files:
        raise MediaError(f"no {kind.split('-')[0]} files to check", path=str(source))
    return {"n": len(files), "detected": sum(f["detected"] for f in files), "files": files}
