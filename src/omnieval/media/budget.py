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
from omnieval.types import ImagePart, MediaPolicy, MediaRef, Message, Request
from omnieval.types._base import Frozen

__all__ = ["BudgetExceeded", "MediaBudget", "fit_request_to_budget", "plan_media_budget"]


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
    return (
        f"exceeds the image budget: {' + '.join(parts)} = {need} images, the model takes at most {cap} "
        "(max_images)"
    )


def _split_media(request: Request) -> tuple[list[MediaRef], list[MediaRef]]:
    """(demo media, query media): the query is the last user message, everything before is demos."""
    last_user = max((i for i, m in enumerate(request.messages) if m.role == "user"), default=-1)
    demos = [ref for i, m in enumerate(request.messages) if i != last_user for ref in m.media]
    query = list(request.messages[last_user].media) if last_user >= 0 else []
    return demos, query


def fit_request_to_budget(request: Request, *, demo_budget: int | None = None) -> tuple[Request, MediaBudget]:
    """Check a rendered request against its policy's ``max_images`` and cap its video frames.

    Media in the last user message are the query; media in earlier messages (few-shot turns) are
    demos. Demo images beyond ``demo_budget`` are removed from the messages (MEGA-Bench drops
    them too; the count is in the returned budget). The returned request's
    ``media_policy.video_max_frames`` is lowered so every video fits; a policy holds one cap for
    all videos of a request, so when demos carry videos too the frames left after images are
    split equally over all videos (the exact MEGA-Bench shares are in the returned budget, for
    callers that pass ``max_frames`` per video). Raises :class:`BudgetExceeded` naming the task
    and sample when the query alone cannot fit.
    """
    demos, query = _split_media(request)
    policy = request.media_policy
    n_query_images = sum(r.kind == "image" for r in query)
    n_videos = {"query": sum(r.kind == "video" for r in query), "demo": sum(r.kind == "video" for r in demos)}
    plan = plan_media_budget(
        policy,
        query_images=n_query_images,
        query_videos=n_videos["query"],
        demo_images=sum(r.kind == "image" for r in demos),
        demo_videos=n_videos["demo"],
        demo_budget=demo_budget,
        where=f"task {request.task!r}, sample {request.sample_id!r}",
    )
    if plan.demo_images_dropped:
        request = request.model_copy(
            update={"messages": _drop_demo_images(request, keep=plan.demo_images_kept)}
        )
    frames = policy.video_max_frames
    if policy.max_images is not None and n_videos["demo"]:
        left = policy.max_images - plan.demo_images_kept - n_query_images
        frames = min(frames, left // (n_videos["demo"] + n_videos["query"]))
    elif policy.max_images is not None and n_videos["query"]:
        frames = plan.query_frames_per_video
    if frames >= policy.video_max_frames:
        return request, plan
    capped = policy.model_copy(update={"video_max_frames": frames})
    return request.model_copy(update={"media_policy": capped}), plan


def _drop_demo_images(request: Request, *, keep: int) -> tuple[Message, ...]:
    """The messages with demo image parts after the first ``keep`` removed (query untouched)."""
    last_user = max((i for i, m in enumerate(request.messages) if m.role == "user"), default=-1)
    out, seen = [], 0
    for i, msg in enumerate(request.messages):
        if i == last_user or isinstance(msg.content, str):
            out.append(msg)
            continue
        parts = []
        for part in msg.content:
            if isinstance(part, ImagePart):
                seen += 1
                if seen > keep:
                    continue
            parts.append(part)
        out.append(msg.model_copy(update={"content": tuple(parts)}))
    return tuple(out)
