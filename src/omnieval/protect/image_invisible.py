"""An invisible keyed image mark that survives JPEG re-encoding and resizing.

Method (our own, in docs/benchmarks/protect.md): a keyed ±1 pattern on a coarse ``grid × grid`` lattice
is smoothly upsampled to the image size and added to the luminance with amplitude ``strength`` (grey
levels). Because the pattern lives at the scale of whole cells, JPEG (which drops fine detail) and
resizing (which rescales the cells with the image) leave it in place. Detection averages the luminance
back onto the lattice, removes the image's own slow variation with a local high-pass, and correlates
with the key's pattern; the score is calibrated against unused keys on the same image.
Cropping or rotation breaks the lattice alignment and is out of scope.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from omnieval.protect.detection import DEFAULT_THRESHOLD, Detection, calibrated_z, cosine, to_detection
from omnieval.protect.keys import keyed_rng, null_rngs

__all__ = ["detect_image", "embed_image"]

_PURPOSE = "image-invisible"
_CELL = 4  # detector samples each lattice cell with CELL x CELL pixels before averaging
_N_NULL = 48


def _pattern(rng: np.random.Generator, grid: int) -> np.ndarray:
    return rng.choice(np.array([-1.0, 1.0], dtype=np.float32), size=(grid, grid))


def _upsample(pattern: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Bilinear upsampling of the lattice to ``size`` (width, height): smooth, so no visible blocks."""
    img = Image.fromarray(pattern.astype(np.float32), mode="F")
    return np.asarray(img.resize(size, Image.Resampling.BILINEAR), dtype=np.float32)


def _luma(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("L"), dtype=np.float32)


def _highpass(cells: np.ndarray) -> np.ndarray:
    """Each cell minus the mean of its 3×3 neighbourhood (edges replicated)."""
    padded = np.pad(cells, 1, mode="edge")
    h, w = cells.shape
    local = sum(padded[dy : dy + h, dx : dx + w] for dy in range(3) for dx in range(3)) / 9.0
    return cells - local


def _to_lattice(plane: np.ndarray, grid: int) -> np.ndarray:
    """Area-average a plane onto the ``grid × grid`` lattice (whatever the plane's size)."""
    img = Image.fromarray(plane.astype(np.float32), mode="F")
    side = grid * _CELL
    small = np.asarray(img.resize((side, side), Image.Resampling.BOX), dtype=np.float32)
    return small.reshape(grid, _CELL, grid, _CELL).mean(axis=(1, 3))


def embed_image(img: Image.Image, *, key: str, strength: float = 4.0, grid: int = 64) -> Image.Image:
    """Return an RGB copy of ``img`` carrying the mark for ``key`` (alpha, if any, is kept)."""
    alpha = img.getchannel("A") if img.mode in ("RGBA", "LA") else None
    rgb = np.asarray(img.convert("RGB"), dtype=np.float32)
    delta = strength * _upsample(_pattern(keyed_rng(key, purpose=_PURPOSE), grid), img.size)
    marked = Image.fromarray(np.clip(np.rint(rgb + delta[..., None]), 0, 255).astype(np.uint8), "RGB")
    if alpha is not None:
        marked.putalpha(alpha)
    return marked


def image_z(img: Image.Image, *, key: str, grid: int = 64) -> float:
    """The calibrated detection score of ``key`` on ``img`` (about N(0, 1) when unmarked)."""
    observed = _highpass(_to_lattice(_luma(img), grid)).ravel()

    def statistic(pattern: np.ndarray) -> float:
        reference = _highpass(_to_lattice(_upsample(pattern, (grid * _CELL, grid * _CELL)), grid)).ravel()
        return cosine(observed, reference)

    nulls = [_pattern(rng, grid) for rng in null_rngs(key, purpose=_PURPOSE, n=_N_NULL)]
    return calibrated_z(statistic, _pattern(keyed_rng(key, purpose=_PURPOSE), grid), nulls)


def detect_image(
    img: Image.Image, *, key: str, grid: int = 64, threshold: float = DEFAULT_THRESHOLD
) -> Detection:
    """Whether ``img`` carries the mark of ``key``."""
    return to_detection(image_z(img, key=key, grid=grid), threshold=threshold)
