"""Images: modes, alpha on white, orientation, resize policy, encodings, bad files."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from omnieval.errors import ConfigError, MediaError
from omnieval.media.image import fit_size
from omnieval.media.processor import MediaProcessor
from omnieval.types import MediaPolicy, MediaRef


def encode(img: Image.Image, fmt: str = "PNG", **kwargs: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kwargs)
    return buf.getvalue()


def ref_of(data: bytes, name: str = "image") -> MediaRef:
    return MediaRef(kind="image", name=name, data=data)


def prep(data: bytes, **policy: object) -> tuple[np.ndarray, dict]:
    out = MediaProcessor(MediaPolicy(**policy)).image(ref_of(data))  # type: ignore[arg-type]
    return np.asarray(out.pil()), out.applied


def test_rgba_is_composited_on_white() -> None:
    rgba = np.zeros((2, 3, 4), np.uint8)
    rgba[0, 0] = (255, 0, 0, 0)  # fully transparent red -> white
    rgba[0, 1] = (0, 0, 255, 255)  # opaque blue stays blue
    rgba[0, 2] = (0, 0, 0, 128)  # half-transparent black -> mid grey
    pixels, applied = prep(encode(Image.fromarray(rgba, "RGBA")))
    assert pixels.shape == (2, 3, 3)
    assert tuple(pixels[0, 0]) == (255, 255, 255)
    assert tuple(pixels[0, 1]) == (0, 0, 255)
    assert all(abs(int(v) - 127) <= 1 for v in pixels[0, 2])
    assert applied["alpha_composited_on_white"] is True
    assert applied["mode"] == "RGBA"


def test_la_and_palette_with_transparency_use_white() -> None:
    la = Image.fromarray(np.array([[[0, 0], [0, 255]]], np.uint8), "LA")
    assert np.asarray(prep(encode(la))[0])[0].tolist() == [[255, 255, 255], [0, 0, 0]]
    pal = Image.new("P", (2, 1))
    pal.putpalette([10, 20, 30, 200, 100, 50] + [0] * 762)
    pal.putdata([0, 1])
    pal.info["transparency"] = 0
    pixels, applied = prep(encode(pal, transparency=0))
    assert pixels[0].tolist() == [[255, 255, 255], [200, 100, 50]]
    assert applied["mode"] == "P"


def test_palette_without_transparency_keeps_colours() -> None:
    pal = Image.new("P", (2, 1))
    pal.putpalette([10, 20, 30, 200, 100, 50] + [0] * 762)
    pal.putdata([0, 1])
    pixels, applied = prep(encode(pal))
    assert pixels[0].tolist() == [[10, 20, 30], [200, 100, 50]]
    assert applied["alpha_composited_on_white"] is False


def test_grayscale_becomes_rgb_with_equal_channels() -> None:
    gray = Image.fromarray(np.array([[0, 77, 255]], np.uint8), "L")
    pixels, _ = prep(encode(gray))
    assert pixels[0].tolist() == [[0, 0, 0], [77, 77, 77], [255, 255, 255]]


def test_sixteen_bit_grayscale_is_scaled_not_clipped() -> None:
    wide = Image.fromarray(np.array([[0, 32768, 65535]], np.uint16))
    pixels, _ = prep(encode(wide))
    assert [int(p[0]) for p in pixels[0]] == [0, 128, 255]


def test_one_pixel_image_survives_every_policy() -> None:
    one = encode(Image.new("RGB", (1, 1), (9, 8, 7)))
    for policy in ({}, {"image_max_side": 1}, {"image_max_pixels": 1}):
        pixels, applied = prep(one, **policy)
        assert pixels.tolist() == [[[9, 8, 7]]]
        assert applied["final_size"] == [1, 1]
    thin = encode(Image.new("RGB", (1000, 1)))
    assert prep(thin, image_max_pixels=10)[1]["final_size"] == [10, 1]


@pytest.mark.parametrize(
    ("size", "policy", "expected"),
    [
        ((2000, 1000), {"max_side": 1000, "max_pixels": None}, (1000, 500)),
        ((3000, 1000), {"max_side": 1000, "max_pixels": None}, (1000, 333)),
        ((1000, 3000), {"max_side": 1000, "max_pixels": None}, (333, 1000)),
        ((1000, 1000), {"max_side": None, "max_pixels": 250_000}, (500, 500)),
        ((4000, 1000), {"max_side": 1000, "max_pixels": 100_000}, (632, 158)),
        ((800, 600), {"max_side": 1000, "max_pixels": 10**6}, (800, 600)),
    ],
)
def test_fit_size_worked_examples(size: tuple[int, int], policy: dict, expected: tuple[int, int]) -> None:
    assert fit_size(*size, **policy) == expected


@given(
    w=st.integers(1, 5000),
    h=st.integers(1, 5000),
    side=st.none() | st.integers(1, 2000),
    pixels=st.none() | st.integers(1, 2_000_000),
)
def test_fit_size_respects_limits_and_aspect(w: int, h: int, side: int | None, pixels: int | None) -> None:
    nw, nh = fit_size(w, h, max_side=side, max_pixels=pixels)
    assert 1 <= nw <= w and 1 <= nh <= h
    if side is not None:
        assert max(nw, nh) <= max(side, 1)
    if pixels is not None:
        assert nw * nh <= pixels
    if min(nw, nh) > 1:  # aspect kept: the short side is within rounding of long side × ratio
        long, short, ratio = (nw, nh, h / w) if w >= h else (nh, nw, w / h)
        assert abs(short - long * ratio) <= 2


def test_bad_policy_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="image_max_side"):
        fit_size(10, 10, max_side=0, max_pixels=None)


def test_exif_orientation_is_applied() -> None:
    img = Image.new("RGB", (40, 20), (255, 0, 0))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise on display
    out = MediaProcessor(MediaPolicy()).image(ref_of(encode(img, "JPEG", exif=exif)))
    assert (out.width, out.height) == (20, 40)
    assert out.applied["exif_orientation"] == 6
    assert out.applied["original_size"] == [40, 20]


def test_encoding_rule_passthrough_png_and_jpeg() -> None:
    proc = MediaProcessor(MediaPolicy(image_max_side=50))
    png = encode(Image.new("RGB", (20, 10), (1, 2, 3)))
    small = proc.image(ref_of(png))
    assert small.bytes == png and small.applied["encoding"] == "original" and small.mime == "image/png"
    big_jpeg = encode(Image.new("RGB", (200, 100), (200, 10, 10)), "JPEG")
    out = proc.image(ref_of(big_jpeg))
    assert out.mime == "image/jpeg" and out.applied["encoding"] == "jpeg:q95"
    assert (out.width, out.height) == (50, 25)
    big_png = encode(Image.new("RGB", (200, 100)))
    assert proc.image(ref_of(big_png)).applied["encoding"] == "png"
    gif = encode(Image.new("P", (4, 4)), "GIF")
    assert proc.image(ref_of(gif)).mime == "image/png"


def test_encodings_round_trip(tmp_path: Path) -> None:
    data = encode(Image.new("RGB", (3, 2), (10, 200, 30)))
    out = MediaProcessor(MediaPolicy(), cache_dir=tmp_path).image(ref_of(data))
    url = out.data_url()
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == out.bytes
    assert out.path().parent.is_relative_to(tmp_path) and out.path().read_bytes() == out.bytes
    assert out.pil().mode == "RGB" and out.pil().getpixel((0, 0)) == (10, 200, 30)
    uncached = MediaProcessor(MediaPolicy()).image(ref_of(data))
    assert uncached.path().read_bytes() == data


def test_animated_gif_uses_first_frame_and_says_so() -> None:
    frames = [Image.new("RGB", (4, 4), c) for c in ((255, 0, 0), (0, 255, 0))]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
    pixels, applied = prep(buf.getvalue())
    assert applied["frames_in_file"] == 2 and applied["frame_used"] == 0
    assert tuple(pixels[0, 0]) == (255, 0, 0)


def test_corrupt_truncated_and_missing_files_name_the_file(tmp_path: Path) -> None:
    proc = MediaProcessor(MediaPolicy())
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"\x89PNG not really an image at all")
    with pytest.raises(MediaError, match=r"junk\.png.*not a recognised image"):
        proc.image(MediaRef(kind="image", name="image", path=str(junk)))
    noise = np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    for fmt in ("PNG", "JPEG"):
        full = encode(Image.fromarray(noise), fmt)
        cut = tmp_path / f"cut.{fmt.lower()}"
        cut.write_bytes(full[: len(full) // 2])
        with pytest.raises(MediaError, match=rf"cut\.{fmt.lower()}.*(truncated|corrupt)"):
            proc.image(MediaRef(kind="image", name="image", path=str(cut)))
    with pytest.raises(MediaError, match=r"nowhere\.png: file not found"):
        proc.image(MediaRef(kind="image", name="image", path=str(tmp_path / "nowhere.png")))
    with pytest.raises(MediaError, match=r"<chart:3 bytes>"):
        proc.image(ref_of(b"abc", name="chart"))


@pytest.mark.parametrize(
    ("fmt", "options"), [("BMP", {}), ("TIFF", {}), ("WEBP", {"lossless": True}), ("PNG", {}), ("PPM", {})]
)
def test_common_lossless_formats_decode_exactly(fmt: str, options: dict) -> None:
    rgb = np.random.default_rng(1).integers(0, 255, (5, 7, 3), dtype=np.uint8)
    pixels, applied = prep(encode(Image.fromarray(rgb), fmt, **options))
    assert np.array_equal(pixels, rgb)
    assert applied["format"] == fmt and applied["final_size"] == [7, 5]


def test_fingerprinting_is_cheap_for_repeated_files(tmp_path: Path) -> None:
    import time

    from omnieval.media import fingerprint

    path = tmp_path / "big.png"
    path.write_bytes(encode(Image.new("RGB", (1500, 1500))) + bytes(8 << 20))
    ref = MediaRef(kind="image", name="image", path=str(path))
    first = fingerprint(ref).sha256
    started = time.perf_counter()
    for _ in range(1000):
        assert fingerprint(ref).sha256 == first
    assert time.perf_counter() - started < 0.5  # memoised per (path, size, mtime): no re-hashing of 8 MB
