"""Fixtures for the media tests (helpers live in ``media_factory``, a uniquely named module)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from media_factory import write_video


@pytest.fixture(scope="session")
def long_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ten minutes at 10 fps (6000 frames), keyframe every 20 frames, tiny resolution."""
    path = tmp_path_factory.mktemp("video") / "ten_minutes.mp4"
    return write_video(path, n_frames=6000, fps=10, gop=20)


@pytest.fixture
def make_video(tmp_path: Path) -> Callable[..., Path]:
    def make(name: str = "clip.mp4", **kwargs: object) -> Path:
        return write_video(tmp_path / name, **kwargs)  # type: ignore[arg-type]

    return make
