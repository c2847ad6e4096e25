"""The invisible image mark: found after JPEG and resizing, absent from clean images and other keys."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from omnieval.protect import detect_image, embed_image
from omnieval.protect.detection import to_detection
from omnieval.protect.visible import Overlay, apply_overlay, render_overlay
from tests.protect.conftest import textured_image


def _jpeg(img: Image.Image, quality: int) -> Image.Image:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    buf.seek(0)
    return Image.open(buf).convert("RGB")


def test_mark_survives_jpeg_and_resizing() -> None:
    img = textured_image(7, (1024, 768))
    marked = embed_image(img, key="secret")
    for attacked in (
        marked,
        _jpeg(marked, 60),
        marked.resize((512, 384)),
        _jpeg(marked.resize((400, 300)), 75),
    ):
        found = detect_image(attacked, key="secret")
        assert found.detected and found.z > 8, found


def test_mark_is_nearly_invisible() -> None:
    img = textured_image(3)
    diff = np.asarray(embed_image(img, key="k"), float) - np.asarray(img, float)
    psnr = 10 * np.log10(255**2 / np.mean(diff**2))
    assert psnr > 38
    assert np.abs(diff).max() <= 5


def test_no_false_positives_on_clean_images_or_other_keys() -> None:
    scores = [detect_image(textured_image(100 + i), key="secret").z for i in range(12)]
    assert max(scores) < 4.0
    assert abs(float(np.mean(scores))) < 1.5  # calibrated: about N(0, 1) under the null
    marked = embed_image(textured_image(5), key="secret")
    assert not detect_image(marked, key="another key").detected


def test_alpha_channel_is_kept() -> None:
    img = textured_image(4, (200, 150)).convert("RGBA")
    img.putalpha(128)
    marked = embed_image(img, key="k")
    assert marked.mode == "RGBA" and marked.getchannel("A").getextrema() == (128, 128)


def test_visible_overlay_touches_only_its_corner() -> None:
    img = Image.new("RGB", (400, 300), (40, 90, 160))
    out = apply_overlay(
        img, render_overlay(Overlay(text="МЕРА", position="bottom-right", opacity=0.8), img.size)
    )
    changed = np.argwhere(np.any(np.asarray(out) != np.asarray(img), axis=-1))
    assert changed.size, "the overlay drew nothing"
    assert changed[:, 0].min() > 150 and changed[:, 1].min() > 200  # rows in the lower half, columns at right
    assert changed[:, 1].max() - changed[:, 1].min() <= 0.25 * 400 + 2  # --scale is the share of the width


def test_confidence_is_one_half_at_the_threshold() -> None:
    """confidence = Φ(z − threshold): detected exactly when confidence > 0.5, a chance z stays low."""
    assert to_detection(4.0, threshold=4.0).confidence == 0.5
    assert to_detection(2.0, threshold=4.0).confidence < 0.03  # Φ(−2) ≈ 0.0228, not Φ(2) ≈ 0.977
    assert to_detection(5.0, threshold=3.0).confidence > 0.97
    for z in np.linspace(-3, 12, 31):
        found = to_detection(float(z), threshold=4.0)
        assert found.detected == (found.confidence > 0.5) or found.confidence == 0.5
