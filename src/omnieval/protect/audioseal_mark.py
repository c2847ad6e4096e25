"""AudioSeal (San Roman et al. 2024; MERA Multi's audio watermark) through its own package and loader.

Optional extra ``protect``; the released weights live on a model hub and are not fetched here: pass local
checkpoint files (``--audioseal-generator/--audioseal-detector``), e.g. the published
``generator_base.pth``/``detector_base.pth`` copied onto the machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from omnieval.errors import ConfigError
from omnieval.media.audio import resample
from omnieval.protect.detection import Detection

__all__ = ["AudioSealMarker"]

_RATE = 16_000


class AudioSealMarker:
    """A loaded generator/detector pair; audio is processed at AudioSeal's 16 kHz and mapped back."""

    def __init__(self, *, generator: Path | None, detector: Path | None, threshold: float = 0.5) -> None:
        try:
            from audioseal import AudioSeal
        except ModuleNotFoundError:
            raise ConfigError(
                "AudioSeal needs the optional package: pip install 'omnieval[protect]'"
            ) from None
        for role, path in (("generator", generator), ("detector", detector)):
            if path is not None and not path.is_file():
                raise ConfigError(
                    f"AudioSeal {role} checkpoint {path} not found (weights are never downloaded here)"
                )
        self.generator = AudioSeal.load_generator(str(generator)) if generator else None
        self.detector = AudioSeal.load_detector(str(detector)) if detector else None
        self.threshold = threshold

    @staticmethod
    def _mono16k(data: np.ndarray, rate: int) -> Any:
        import torch

        mono = resample(data.mean(axis=1).astype(np.float32), rate_in=rate, rate_out=_RATE)
        return torch.from_numpy(np.ascontiguousarray(mono))[None, None, :]

    def embed(self, data: np.ndarray, rate: int) -> np.ndarray:
        """``data`` (frames, channels) with the AudioSeal watermark added to every channel."""
        import torch

        if self.generator is None:
            raise ConfigError("marking with AudioSeal needs --audioseal-generator")
        with torch.inference_mode():
            mark = self.generator.get_watermark(self._mono16k(data, rate), _RATE)[0, 0].numpy()
        back = resample(mark.astype(np.float32), rate_in=_RATE, rate_out=rate)
        back = np.pad(back, (0, max(0, data.shape[0] - back.shape[0])))[: data.shape[0]]
        return np.clip(data + back[:, None], -1.0, 1.0).astype(np.float32)

    def detect(self, data: np.ndarray, rate: int) -> Detection:
        """AudioSeal's detection probability; detected when it exceeds ``threshold``."""
        import torch

        if self.detector is None:
            raise ConfigError("detecting with AudioSeal needs --audioseal-detector")
        with torch.inference_mode():
            probability, _message = self.detector.detect_watermark(self._mono16k(data, rate), _RATE)
        p = float(probability)
        return Detection(detected=p > self.threshold, z=None, confidence=round(p, 6))
