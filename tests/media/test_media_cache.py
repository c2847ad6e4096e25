"""Fingerprints and the disk cache: deterministic keys, hits without decoding, invalidation."""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from media_factory import wav_bytes
from PIL import Image

import omnieval.media.processor as processor_module
import omnieval.media.video_stage as video_stage
from omnieval.errors import MediaError
from omnieval.media import fingerprint
from omnieval.media.processor import MediaProcessor, processor_for
from omnieval.types import MediaPolicy, MediaRef


def png(color: tuple[int, int, int], size: tuple[int, int] = (64, 32)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def test_fingerprint_is_the_sha256_of_the_content(tmp_path: Path) -> None:
    data = png((1, 2, 3))
    path = tmp_path / "a.png"
    path.write_bytes(data)
    expected = hashlib.sha256(data).hexdigest()
    by_path = fingerprint(MediaRef(kind="image", name="image", path=str(path)))
    by_bytes = fingerprint(MediaRef(kind="image", name="image", data=data))
    assert by_path.sha256 == by_bytes.sha256 == expected
    assert by_path.path == str(path) and fingerprint(by_path) is by_path


def test_fingerprint_notices_a_changed_file(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    path.write_bytes(png((1, 2, 3)))
    first = fingerprint(MediaRef(kind="image", name="image", path=str(path))).sha256
    path.write_bytes(png((9, 9, 9), size=(65, 32)))
    os.utime(path, ns=(1, 1))
    second = fingerprint(MediaRef(kind="image", name="image", path=str(path))).sha256
    assert first != second == hashlib.sha256(path.read_bytes()).hexdigest()


def test_fingerprint_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(MediaError, match=r"missing\.png: file not found"):
        fingerprint(MediaRef(kind="image", name="image", path=str(tmp_path / "missing.png")))
    with pytest.raises(MediaError, match="is a directory"):
        fingerprint(MediaRef(kind="image", name="image", path=str(tmp_path)))
    with pytest.raises(MediaError, match=r"https://example\.org/a\.png: remote URLs are not fetched"):
        fingerprint(MediaRef(kind="image", name="image", path="https://example.org/a.png"))
    with pytest.raises(MediaError, match="neither a path nor embedded bytes"):
        fingerprint(MediaRef(kind="audio", name="audio_1"))


def test_image_cache_hit_needs_no_decoding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ref = MediaRef(kind="image", name="image", data=png((200, 0, 0), size=(300, 100)))
    policy = MediaPolicy(image_max_side=150)
    first = MediaProcessor(policy, cache_dir=tmp_path).image(ref)
    assert first.applied["cache"] == "miss"

    def no_decoding(*args: object, **kwargs: object) -> None:
        raise AssertionError("decoded again despite a cache entry")

    monkeypatch.setattr(processor_module, "decode_image", no_decoding)
    fresh = MediaProcessor(policy, cache_dir=tmp_path)  # a new run over the same cache directory
    second = fresh.image(ref)
    assert second.applied["cache"] == "hit" and second.bytes == first.bytes
    assert (second.width, second.height) == (150, 50) and second.path() == first.path()
    assert fresh.stats.hits == 1 and fresh.stats.misses == 0
    with pytest.raises(AssertionError, match="decoded again"):
        MediaProcessor(MediaPolicy(image_max_side=100), cache_dir=tmp_path).image(ref)


def test_audio_and_video_cache_hits(
    tmp_path: Path, make_video: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    audio = MediaRef(kind="audio", name="audio_1", data=wav_bytes(np.ones(4410, np.float32) * 0.25, 44100))
    video = MediaRef(kind="video", name="video", path=str(make_video(n_frames=30)))
    policy = MediaPolicy(video_max_frames=4)
    a1 = MediaProcessor(policy, cache_dir=tmp_path).audio(audio)
    v1 = MediaProcessor(policy, cache_dir=tmp_path).video(video)

    def no_decoding(*args: object, **kwargs: object) -> None:
        raise AssertionError("decoded again despite a cache entry")

    monkeypatch.setattr(video_stage, "sample_video", no_decoding)
    monkeypatch.setattr(processor_module, "decode_audio", no_decoding)
    a2 = MediaProcessor(policy, cache_dir=tmp_path).audio(audio)
    v2 = MediaProcessor(policy, cache_dir=tmp_path).video(video)
    assert (
        a2.applied["cache"] == "hit" and np.array_equal(a1.array, a2.array) and a2.array.dtype == np.float32
    )
    assert v2.applied["cache"] == "hit" and v2.timestamps == v1.timestamps == (0.0, 1.0, 2.0)
    assert [f.bytes for f in v2.frames] == [f.bytes for f in v1.frames]
    assert all(f.path().is_relative_to(tmp_path) for f in v2.frames)
    with pytest.raises(AssertionError, match="decoded again"):  # another frame cap is another artefact
        MediaProcessor(policy, cache_dir=tmp_path).video(video, max_frames=2)


def test_incomplete_cache_entries_are_recomputed(tmp_path: Path) -> None:
    ref = MediaRef(kind="image", name="image", data=png((0, 0, 200), size=(300, 100)))
    policy = MediaPolicy(image_max_side=30)
    first = MediaProcessor(policy, cache_dir=tmp_path).image(ref)
    first.path().unlink()  # artefact lost, meta.json still there
    again = MediaProcessor(policy, cache_dir=tmp_path).image(ref)
    assert again.applied["cache"] == "miss" and again.bytes == first.bytes and again.path().exists()


def test_without_cache_dir_everything_still_works() -> None:
    out = MediaProcessor(MediaPolicy(image_max_side=10)).image(
        MediaRef(kind="image", name="image", data=png((5, 5, 5)))
    )
    assert out.applied["cache"] == "off" and out.path().read_bytes() == out.bytes


def test_processor_for_is_memoised(tmp_path: Path) -> None:
    a = processor_for(MediaPolicy(image_max_side=10), tmp_path)
    assert processor_for(MediaPolicy(image_max_side=10), tmp_path) is a
    assert processor_for(MediaPolicy(image_max_side=11), tmp_path) is not a
    assert processor_for(MediaPolicy(image_max_side=10), None) is not a
