"""The asset pool: synthesized sounds by default, real recordings from a user folder where given.

A user folder holds audio files named after the sounds they replace (``bell.wav``, ``sea.flac``; the
ids are in ``data/kb.yaml``) and, optionally, ``crli/<speaker>.wav`` (``crli/et_1.wav``) real recordings
for the language tasks. Every file is read when the pool is built, so an unreadable or unknown file
fails before generation starts, naming the file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from omnieval.benchmarks.art.dsp import RATE, edge_fades, resample
from omnieval.benchmarks.art.synth import RECIPE_VERSION, RECIPES, TUNES, synthesize, tame
from omnieval.errors import SourceError

__all__ = ["AUDIO_SUFFIXES", "AssetPool", "load_assets"]

AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3")


@dataclass(frozen=True)
class AssetPool:
    """Sound and CRLI recordings: name → 16 kHz float samples, plus where each came from."""

    asset_seed: int = 0
    files: dict[str, np.ndarray] = field(default_factory=dict)
    provenance: dict[str, dict[str, Any]] = field(default_factory=dict)
    clips: dict[tuple[str, str | None], Any] = field(default_factory=dict, compare=False)
    """Rendered (truncated, transformed) clips of this pool, filled by the renderer as a cache."""

    def sound(self, name: str) -> tuple[np.ndarray, dict[str, Any]]:
        if name in self.files:
            return self.files[name], self.provenance[name]
        return synthesize(name, asset_seed=self.asset_seed), {
            "source": "synth",
            "recipe": RECIPE_VERSION,
            "asset_seed": self.asset_seed,
        }

    def recording(self, speaker: str) -> tuple[np.ndarray, dict[str, Any]] | None:
        key = f"crli/{speaker}"
        return (self.files[key], self.provenance[key]) if key in self.files else None


def _read(path: Path, *, tune: bool) -> np.ndarray:
    import soundfile

    try:
        data, rate = soundfile.read(str(path), dtype="float64", always_2d=True)
    except Exception as exc:  # soundfile raises several types for unreadable input
        raise SourceError(
            f"art: cannot read asset file ({type(exc).__name__}: {exc})", path=str(path)
        ) from None
    mono = data.mean(axis=1)
    if mono.size == 0 or not np.any(mono):
        raise SourceError("art: asset file is empty or silent", path=str(path))
    return edge_fades(tame(resample(mono, rate, RATE), 0.4 if tune else 0.7))


def load_assets(
    folder: str | Path | None, *, asset_seed: int = 0, crli_speakers: tuple[str, ...] = ()
) -> AssetPool:
    """Read every recording in ``folder`` (checked up front); ``None`` means synthetic only."""
    if folder is None:
        return AssetPool(asset_seed=asset_seed)
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise SourceError("art: asset folder not found", path=str(root))
    files: dict[str, np.ndarray] = {}
    provenance: dict[str, dict[str, Any]] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root)
        key = f"crli/{path.stem}" if rel.parts[0] == "crli" and len(rel.parts) == 2 else path.stem
        if path.suffix.lower() not in AUDIO_SUFFIXES:
            raise SourceError(f"art: asset files must be audio ({', '.join(AUDIO_SUFFIXES)})", path=str(path))
        known = key in RECIPES or (key.startswith("crli/") and key[5:] in crli_speakers)
        if not known:
            raise SourceError(
                f"art: asset {key!r} names no ART sound or CRLI speaker (sounds: {sorted(RECIPES)}; "
                f"CRLI speakers: {list(crli_speakers)})",
                path=str(path),
            )
        if key in files:
            raise SourceError(f"art: two asset files for {key!r}", path=str(path))
        files[key] = _read(path, tune=key in TUNES)
        files[key].setflags(write=False)
        provenance[key] = {
            "source": "file",
            "path": str(rel),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest()[:16],
        }
    return AssetPool(asset_seed=asset_seed, files=files, provenance=provenance)
