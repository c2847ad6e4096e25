"""Image decoding and the resize/encode policy.

Every image ends as RGB: alpha (RGBA, LA, PA, palette or RGB with a transparent colour) is
composited on white, high-bit-depth grey is scaled to 8 bits, EXIF orientation is applied.
Resizing keeps the aspect ratio and never enlarges. Encoding rule (recorded as ``encoding``):
the original bytes when nothing had to change and the file is already PNG or JPEG; otherwise
JPEG quality 95 for lossy sources (JPEG/MPO, and video frames) and PNG for everything else, so
diagrams and text stay lossless.
"""

from __future__ import annotations

import io
import math
from typing import Any, BinaryIO

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from omnieval.errors import ConfigError, MediaError

__all__ = [
    "JPEG_QUALITY",
    "can_pass_through",
    "decode_image",
    "encode_image",
    "fit_size",
    "is_lossy",
    "normalize_image",
]

JPEG_QUALITY = 95
PNG_COMPRESS_LEVEL = 3
_LOSSY_FORMATS = frozenset({"JPEG", "MPO"})
_ALPHA_MODES = frozenset({"RGBA", "LA", "PA", "RGBa", "La"})
_WIDE_MODES = frozenset({"I", "I;16", "I;16B", "I;16L", "I;16N", "F"})
_EXIF_ORIENTATION = 0x0112


def fit_size(width: int, height: int, *, max_side: int | None, max_pixels: int | None) -> tuple[int, int]:
    """The largest size within both limits with the aspect ratio kept; never larger than the input."""
    for name, value in (("image_max_side", max_side), ("image_max_pixels", max_pixels)):
        if value is not None and value < 1:
            raise ConfigError(f"media policy {name} must be at least 1, got {value}")
    new_w, new_h = width, height
    if max_side is not None and max(new_w, new_h) > max_side:
        if new_w >= new_h:
            new_w, new_h = max_side, max(1, round(height * max_side / width))
        else:
            new_w, new_h = max(1, round(width * max_side / height)), max_side
    if max_pixels is not None and new_w * new_h > max_pixels:
        scale = math.sqrt(max_pixels / (width * height))
        new_w = min(new_w, max(1, math.floor(width * scale + 1e-9)))
        new_h = min(new_h, max(1, math.floor(height * scale + 1e-9)))
        while new_w * new_h > max_pixels:
            if new_w >= new_h:
                new_w -= 1
            else:
                new_h -= 1
    return new_w, new_h


def decode_image(
    stream: BinaryIO, *, where: str, max_side: int | None, max_pixels: int | None
) -> tuple[Image.Image, dict[str, Any]]:
    """Open and fully decode an image, raising :class:`MediaError` naming ``where`` on bad input.

    For JPEG, when the target size is far smaller, the decoder's draft mode decodes at 1/2..1/8
    scale directly, which is much faster than decoding full size and shrinking.
    """
    try:
        img = Image.open(stream)
        info: dict[str, Any] = {"format": img.format, "mode": img.mode, "original_size": list(img.size)}
        n_frames = getattr(img, "n_frames", 1)
        if n_frames > 1:
            info["frames_in_file"] = n_frames
            info["frame_used"] = 0
        target = fit_size(*img.size, max_side=max_side, max_pixels=max_pixels)
        if img.format == "JPEG" and target != img.size:
            img.draft("RGB", target)
        img.load()
    except UnidentifiedImageError:
        raise MediaError("not a recognised image format (corrupt or unsupported)", path=where) from None
    except Image.DecompressionBombError as exc:
        raise MediaError(f"image too large to decode safely: {exc}", path=where) from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise MediaError(f"corrupt or truncated image: {exc}", path=where) from None
    return img, info


def _to_rgb(img: Image.Image) -> tuple[Image.Image, bool]:
    """Convert to RGB; returns the image and whether an alpha channel was composited on white."""
    if img.mode in _WIDE_MODES:
        arr = np.asarray(img, dtype=np.float64)
        peak = float(arr.max()) if arr.size else 0.0
        if peak > 255:
            arr = arr * (255.0 / peak)
        img = Image.fromarray(np.clip(np.rint(arr), 0, 255).astype(np.uint8), "L")
    has_alpha = img.mode in _ALPHA_MODES or (img.mode in ("P", "L", "RGB") and "transparency" in img.info)
    if has_alpha:
        rgba = img.convert("RGBA")
        canvas = Image.new("RGB", rgba.size, (255, 255, 255))
        canvas.paste(rgba, mask=rgba.getchannel("A"))
        return canvas, True
    if img.mode == "RGB":
        return img, False
    return img.convert("RGB"), False


def normalize_image(
    img: Image.Image, *, max_side: int | None, max_pixels: int | None
) -> tuple[Image.Image, dict[str, Any]]:
    """Orientation, RGB with alpha on white, and the resize policy; returns what was applied."""
    applied: dict[str, Any] = {}
    orientation = img.getexif().get(_EXIF_ORIENTATION, 1) if hasattr(img, "getexif") else 1
    if orientation not in (1, None):
        img = ImageOps.exif_transpose(img)
        applied["exif_orientation"] = int(orientation)
    img, composited = _to_rgb(img)
    applied["alpha_composited_on_white"] = composited
    size = fit_size(*img.size, max_side=max_side, max_pixels=max_pixels)
    applied["resized"] = size != img.size
    if size != img.size:
        img = img.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
        applied["resample"] = "lanczos"
    applied["final_size"] = list(img.size)
    return img, applied


def encode_image(img: Image.Image, *, lossy: bool) -> tuple[bytes, str, str]:
    """Encode RGB pixels: JPEG q95 for lossy sources, PNG otherwise. Returns (bytes, mime, encoding)."""
    buf = io.BytesIO()
    if lossy:
        img.save(buf, format="JPEG", quality=JPEG_QUALITY)
        return buf.getvalue(), "image/jpeg", f"jpeg:q{JPEG_QUALITY}"
    img.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue(), "image/png", "png"


def can_pass_through(info: dict[str, Any], applied: dict[str, Any]) -> str | None:
    """The MIME type when the original bytes can be sent unchanged, else ``None``."""
    if applied.get("final_size") != info.get("original_size"):
        return None
    if applied.get("exif_orientation") or applied.get("alpha_composited_on_white"):
        return None
    if info.get("mode") != "RGB" or info.get("frames_in_file"):
        return None
    return {"PNG": "image/png", "JPEG": "image/jpeg"}.get(str(info.get("format")))


def is_lossy(info: dict[str, Any]) -> bool:
    return str(info.get("format")) in _LOSSY_FORMATS
