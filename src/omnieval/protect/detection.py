"""One detection result and the self-calibrating score every keyed detector shares."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from omnieval.types._base import Frozen

__all__ = ["DEFAULT_THRESHOLD", "Detection", "calibrated_z", "cosine", "to_detection"]

DEFAULT_THRESHOLD = 4.0
"""z above which a mark counts as present: one-sided p ≈ 3e-5 under a normal null."""


class Detection(Frozen):
    """Whether one file carries the keyed mark, and how sure the detector is."""

    detected: bool
    z: float | None
    """Calibrated score of the keyed methods; None for detectors that give a probability only (AudioSeal)."""
    confidence: float


def calibrated_z(
    statistic: Callable[[np.ndarray], float], pattern: np.ndarray, null_patterns: Sequence[np.ndarray]
) -> float:
    """z of the key's statistic against the same statistic for unused keys on the same content.

    The content itself correlates with any pattern a little; measuring that spread on the very file
    (instead of assuming a textbook variance) keeps the false-positive rate honest on any image or audio.
    """
    observed = statistic(pattern)
    null = np.array([statistic(p) for p in null_patterns])
    spread = float(null.std(ddof=1)) or 1e-12
    return (observed - float(null.mean())) / spread


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity with plain element-wise sums: BLAS threads cost more than they save at this size."""
    denominator = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum()) / denominator if denominator else 0.0


def to_detection(z: float, *, threshold: float = DEFAULT_THRESHOLD) -> Detection:
    """Detection with ``confidence`` = Φ(z − threshold): 0.5 exactly at the threshold, as AudioSeal's
    probability.

    Φ(z) alone would read as "97 % sure" for a chance z of 2 (a wrong key); centring on the threshold makes
    ``detected`` ⇔ ``confidence > 0.5`` for every method, and a wrong key or clean file stays near 0.
    """
    confidence = 0.5 * (1.0 + math.erf((z - threshold) / math.sqrt(2.0)))
    return Detection(detected=z > threshold, z=round(z, 4), confidence=round(confidence, 6))
