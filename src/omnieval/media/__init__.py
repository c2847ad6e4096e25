"""omnieval.media: decode, resize, sample, encode and cache images, audio and video under a policy.

Public API (other stages code against these names):

- :func:`fingerprint` fills ``MediaRef.sha256`` (streamed, memoised per file).
- :class:`MediaProcessor` / :func:`processor_for` prepare refs into :class:`PreparedImage`,
  :class:`PreparedAudio` and :class:`PreparedVideo`, each with an ``applied`` dict to log.
- :func:`plan_media_budget` splits a model's per-request image cap between demos and query;
  :func:`fit_request_to_budget` applies it to a rendered :class:`~omnieval.types.Request`;
  :class:`BudgetExceeded` (a :class:`~omnieval.errors.MediaError`) means "skip this sample".
- :func:`plan_frame_indices` is the frame-sampling rule on its own.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omnieval.media.budget import BudgetExceeded, MediaBudget, fit_request_to_budget, plan_media_budget
    from omnieval.media.cache import PIPELINE_VERSION, MediaCache
    from omnieval.media.hashing import clear_fingerprint_memo, fingerprint, open_media, read_media
    from omnieval.media.image import fit_size
    from omnieval.media.prepared import PreparedAudio, PreparedImage, PreparedVideo
    from omnieval.media.processor import MediaProcessor, MediaStats, processor_for
    from omnieval.media.sampling import SamplingMode, plan_frame_indices

_HOME = {
    **dict.fromkeys(
        ("BudgetExceeded", "MediaBudget", "fit_request_to_budget", "plan_media_budget"), "budget"
    ),
    **dict.fromkeys(("PIPELINE_VERSION", "MediaCache"), "cache"),
    **dict.fromkeys(("clear_fingerprint_memo", "fingerprint", "open_media", "read_media"), "hashing"),
    "fit_size": "image",
    **dict.fromkeys(("PreparedAudio", "PreparedImage", "PreparedVideo"), "prepared"),
    **dict.fromkeys(("MediaProcessor", "MediaStats", "processor_for"), "processor"),
    **dict.fromkeys(("SamplingMode", "plan_frame_indices"), "sampling"),
}
"""Where each public name lives: a submodule is imported on first use, so that a text-only run (and
``from omnieval.media.hashing import ...``) never pays for numpy and PIL."""


def __getattr__(name: str) -> Any:
    """The public names, each imported from its submodule when first asked for."""
    if name in _HOME:
        value = getattr(importlib.import_module(f"omnieval.media.{_HOME[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'omnieval.media' has no attribute {name!r}")


__all__ = [
    "PIPELINE_VERSION",
    "BudgetExceeded",
    "MediaBudget",
    "MediaCache",
    "MediaProcessor",
    "MediaStats",
    "PreparedAudio",
    "PreparedImage",
    "PreparedVideo",
    "SamplingMode",
    "clear_fingerprint_memo",
    "fingerprint",
    "fit_request_to_budget",
    "fit_size",
    "open_media",
    "plan_frame_indices",
    "plan_media_budget",
    "processor_for",
    "read_media",
]
