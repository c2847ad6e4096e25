"""Open a task's media files before a run: ``omnieval validate`` names the missing and undecodable ones."""

from __future__ import annotations

from omnieval.errors import MediaError
from omnieval.media.hashing import open_media
from omnieval.types import MediaRef

__all__ = ["media_problem"]


def media_problem(ref: MediaRef) -> str | None:
    """Why ``ref`` cannot be given to a model (its file missing, unreadable or not decodable as its kind),
    as the media stage would say it; ``None`` when it opens and decodes. Images decode fully, audio fully,
    video as far as its first frame (what the media stage proves before sampling frames)."""
    where = ref.describe()
    try:
        with open_media(ref) as stream:
            if ref.kind == "image":
                from omnieval.media.image import decode_image

                decode_image(stream, where=where, max_side=None, max_pixels=None)
            elif ref.kind == "audio":
                from omnieval.media.audio import decode_audio

                decode_audio(stream, where=where)
            elif ref.kind == "video":
                from omnieval.media.video import probe_video

                probe_video(stream, where=where)
    except MediaError as exc:
        return str(exc)
    return None
