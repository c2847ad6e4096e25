"""Per-request image budgets (MEGA-Bench §D.2 / Table 6 arithmetic).

A model takes at most ``policy.max_images`` images per request, video frames included. A share
of that, ``demo_budget``, is reserved for demonstrations: demo images beyond it are dropped,
demo videos share what is left of it (``ceil(left / demo videos)`` frames each), and query
videos split what remains after every image (``(max - demo images - query images - demo frames)
// query videos``, capped by ``video_max_frames``). When the query alone does not fit, the
request is not sent: :class:`BudgetExceeded` says what exceeded, and the runner marks the
sample ``skipped`` with that reason.
"""

from __future__ import annotations

import math

from omnieval.errors import ConfigError, MediaError
from omnieval.types import MediaPolicy
from omnieval.types._base import Frozen

__all__ = ["BudgetExceeded", "MediaBudget", "plan_media_budget"]


class BudgetExceeded(MediaError):
    """A sample whose media do not fit the model's per-request budget (the sample is skipped)."""


class MediaBudget(Frozen):
    """How many images and frames one request gets; logged with the sample."""

    max_images: int | None
    demo_images_kept: int
    demo_images_dropped: int
    demo_frames_per_video: int
    query_frames_per_video: int
    total_images: int
    """Images plus frames the request will carry."""


def _check(name: str, value: int) -> None:
    if value < 0:
        raise ConfigError(f"media budget {name} must be non-negative, got {value}")


def plan_media_budget(
    policy: MediaPolicy,
    *,
    query_images: int = 0,
    query_videos: int = 0,
    demo_images: int = 0,
    demo_videos: int = 0,
    demo_budget: int | None = None,
    where: str = "sample",
) -> MediaBudget:
    """Split ``policy.max_images`` between demos and query; raise :class:`BudgetExceeded` when it cannot.

    ``demo_budget=None`` reserves nothing: demos keep all their images and full frame counts and
    simply count against the cap.
    """
    counts = {
        "query_images": query_images,
        "query_videos": query_videos,
        "demo_images": demo_images,
        "demo_videos": demo_videos,
        "demo_budget": demo_budget or 0,
    }
    for name, value in counts.items():
        _check(name, value)
    cap = policy.max_images
    if cap is not None and demo_budget is not None and demo_budget > cap:
        raise ConfigError(f"demo image budget {demo_budget} exceeds the model's max_images {cap}")
    vmax = policy.video_max_frames
    if demo_budget is None:
        kept, demo_frames = demo_images, (vmax if demo_videos else 0)
    else:
        kept = min(demo_images, demo_budget)
        left = demo_budget - kept
        demo_frames = min(vmax, max(1, math.ceil(left / demo_videos))) if demo_videos else 0
    fixed = kept + query_images + demo_frames * demo_videos
    if cap is None:
        query_frames = vmax if query_videos else 0
    else:
        if fixed + query_videos > cap:
            raise BudgetExceeded(_exceeded(counts, kept, demo_frames, cap), path=where)
        query_frames = min(vmax, (cap - fixed) // query_videos) if query_videos else 0
    return MediaBudget(
        max_images=cap,
        demo_images_kept=kept,
        demo_images_dropped=demo_images - kept,
        demo_frames_per_video=demo_frames,
        query_frames_per_video=query_frames,
        total_images=fixed + query_frames * query_videos,
    )


def _exceeded(counts: dict[str, int], kept: int, demo_frames: int, cap: int) -> str:
    parts = [f"{counts['query_images']} query image(s)"]
    if kept:
        parts.append(f"{kept} demo image(s)")
    if counts["demo_videos"]:
        parts.append(f"{counts['demo_videos']} demo video(s) × {demo_frames} frame(s)")
    if counts["query_videos"]:
        parts.append(f"{counts['query_videos']} query video(s) × at least 1 frame")
    need = counts["query_images"] + kept + counts["demo_videos"] * demo_frames + counts["query_videos"]
    return f"exceeds the image budget: {' + '.join(parts)} = {need} images, the model takes at most {cap} (max_images)"
