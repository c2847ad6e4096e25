"""Which video frames to keep: the MEGA-Bench rule, generalised to any target rate.

``gap = max(ceil(source_fps / target_fps), ceil(frame_count / max_frames))`` frames between
kept frames, starting at frame 0: about ``target_fps`` frames per second unless that exceeds the
frame budget, in which case frames are spread uniformly over the whole duration. ``uniform``
mode (MEGA-Bench's rule for demonstration videos) uses the budget alone.
"""

from __future__ import annotations

import math
from typing import Literal

from omnieval.errors import ConfigError

__all__ = ["SamplingMode", "plan_frame_indices"]

SamplingMode = Literal["fps", "uniform"]


def plan_frame_indices(
    n_frames: int, *, source_fps: float, target_fps: float, max_frames: int, mode: SamplingMode = "fps"
) -> list[int]:
    """Indices of the frames to decode, increasing, at most ``max_frames`` of them."""
    if max_frames < 1:
        raise ConfigError(f"media policy video_max_frames must be at least 1, got {max_frames}")
    if mode == "fps" and not target_fps > 0:
        raise ConfigError(f"media policy video_fps must be positive, got {target_fps}")
    if n_frames <= 0:
        return []
    budget_gap = math.ceil(n_frames / max_frames)
    rate_gap = 1 if mode == "uniform" else math.ceil(source_fps / target_fps - 1e-9)
    gap = max(rate_gap, budget_gap)
    return list(range(0, n_frames, max(1, gap)))
