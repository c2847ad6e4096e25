"""Per-request image budgets, checked against MEGA-Bench's Table 6 arithmetic."""

from __future__ import annotations

import pytest

from omnieval.errors import ConfigError, MediaError
from omnieval.media import BudgetExceeded, plan_media_budget
from omnieval.types import MediaPolicy


@pytest.mark.parametrize(
    ("max_images", "demo_budget", "query_frames"),
    [(64, 8, 56), (128, 16, 112), (24, 2, 22)],  # GPT-4o, Gemini, Qwen2-VL-72B (mega_bench.md)
)
def test_query_frames_follow_table_6(max_images: int, demo_budget: int, query_frames: int) -> None:
    policy = MediaPolicy(max_images=max_images, video_max_frames=1000)
    plan = plan_media_budget(policy, query_videos=1, demo_videos=1, demo_budget=demo_budget)
    assert plan.demo_frames_per_video == demo_budget
    assert plan.query_frames_per_video == query_frames
    assert plan.total_images == max_images


def test_frames_are_also_capped_by_the_policy() -> None:
    plan = plan_media_budget(MediaPolicy(max_images=64, video_max_frames=16), query_videos=2, query_images=1)
    assert plan.query_frames_per_video == 16 and plan.total_images == 33


def test_demo_images_beyond_the_reserved_share_are_dropped() -> None:
    plan = plan_media_budget(MediaPolicy(max_images=10), query_images=3, demo_images=5, demo_budget=2)
    assert (plan.demo_images_kept, plan.demo_images_dropped, plan.total_images) == (2, 3, 5)
    demos_share_video = plan_media_budget(
        MediaPolicy(max_images=20), demo_images=1, demo_videos=2, demo_budget=7, query_videos=1
    )
    assert demos_share_video.demo_frames_per_video == 3  # ceil((7 - 1) / 2)
    assert demos_share_video.query_frames_per_video == 13  # (20 - 1 - 3·2) // 1


def test_without_a_reservation_demos_count_against_the_cap() -> None:
    plan = plan_media_budget(MediaPolicy(max_images=6), query_images=2, demo_images=3)
    assert (plan.demo_images_kept, plan.total_images) == (3, 5)
    unlimited = plan_media_budget(MediaPolicy(video_max_frames=8), query_images=50, query_videos=2)
    assert unlimited.query_frames_per_video == 8 and unlimited.total_images == 66


def test_over_budget_sample_says_what_exceeded() -> None:
    with pytest.raises(BudgetExceeded) as info:
        plan_media_budget(MediaPolicy(max_images=4), query_images=5, where="task/sample-7")
    message = str(info.value)
    assert isinstance(info.value, MediaError)
    assert "task/sample-7" in message and "5 query image(s)" in message and "at most 4" in message
    with pytest.raises(BudgetExceeded, match="1 query video"):
        plan_media_budget(MediaPolicy(max_images=3), query_images=3, query_videos=1)


def test_bad_budget_configuration() -> None:
    with pytest.raises(ConfigError, match="exceeds the model's max_images"):
        plan_media_budget(MediaPolicy(max_images=4), demo_budget=5)
    with pytest.raises(ConfigError, match="query_images"):
        plan_media_budget(MediaPolicy(), query_images=-1)
