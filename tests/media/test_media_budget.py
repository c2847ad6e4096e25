"""Per-request image budgets, checked against MEGA-Bench's Table 6 arithmetic."""

from __future__ import annotations

import pytest

from omnieval.errors import ConfigError, MediaError
from omnieval.media import BudgetExceeded, fit_request_to_budget, plan_media_budget
from omnieval.types import ImagePart, MediaPolicy, MediaRef, Message, Request, TextPart, VideoPart


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


def _request(*messages: Message, **policy: object) -> Request:
    return Request(task="t", sample_id="s1", messages=messages, media_policy=MediaPolicy(**policy))  # type: ignore[arg-type]


def _img(name: str) -> ImagePart:
    return ImagePart(media=MediaRef(kind="image", name=name, path=f"/x/{name}.png"))


def _vid(name: str) -> VideoPart:
    return VideoPart(media=MediaRef(kind="video", name=name, path=f"/x/{name}.mp4"))


def test_fit_request_caps_query_video_frames() -> None:
    req = _request(
        Message(role="user", content=(_img("chart"), _vid("clip"), TextPart(text="?"))), max_images=10
    )
    fitted, plan = fit_request_to_budget(req)
    assert plan.query_frames_per_video == 9 and fitted.media_policy.video_max_frames == 9
    roomy = _request(Message(role="user", content=(_vid("clip"),)), max_images=100, video_max_frames=16)
    assert fit_request_to_budget(roomy)[0] is roomy


def test_fit_request_drops_demo_images_beyond_the_reserved_share() -> None:
    demo = Message(role="user", content=(_img("d1"), _img("d2"), _img("d3"), TextPart(text="demo")))
    answer = Message(role="assistant", content="A")
    query = Message(role="user", content=(_img("q1"), TextPart(text="question")))
    fitted, plan = fit_request_to_budget(_request(demo, answer, query, max_images=4), demo_budget=1)
    assert plan.demo_images_dropped == 2
    assert [m.name for m in fitted.media] == ["d1", "q1"]
    assert fitted.messages[0].text == "demo" and fitted.messages[2] == query


def test_fit_request_splits_frames_when_demos_have_videos() -> None:
    demo = Message(role="user", content=(_vid("demo_clip"),))
    query = Message(role="user", content=(_vid("clip"), _img("still")))
    fitted, plan = fit_request_to_budget(
        _request(demo, query, max_images=24, video_max_frames=100), demo_budget=2
    )
    assert (plan.demo_frames_per_video, plan.query_frames_per_video) == (2, 21)
    assert fitted.media_policy.video_max_frames == 11  # (24 - 1 image) // 2 videos
    assert 2 * fitted.media_policy.video_max_frames + 1 <= 24


def test_fit_request_over_budget_names_task_and_sample() -> None:
    req = _request(Message(role="user", content=(_img("a"), _img("b"), _img("c"))), max_images=2)
    with pytest.raises(BudgetExceeded, match=r"task 't', sample 's1'.*3 query image\(s\).*at most 2"):
        fit_request_to_budget(req)
