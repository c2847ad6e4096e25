"""omnieval.media: decode, resize, sample, encode and cache images, audio and video under a policy.

Public API (other stages code against these names):

- :func:`fingerprint` fills ``MediaRef.sha256`` (streamed, memoised per file).
- :class:`~omnieval.media.processor.MediaProcessor` / :func:`~omnieval.media.processor.processor_for`
  prepare refs into :class:`~omnieval.media.prepared.PreparedImage`, ``PreparedAudio`` and
  ``PreparedVideo``, each with an ``applied`` dict to log. They load numpy and PIL, so they are imported
  from their modules (``omnieval.media.processor``, ``omnieval.media.prepared``, ``omnieval.media.image``)
  where they are used: a text-only run never pays for them.
- :func:`plan_media_budget` splits a model's per-request image cap between demos and query;
  :func:`fit_request_to_budget` applies it to a rendered :class:`~omnieval.types.Request`;
  :class:`BudgetExceeded` (a :class:`~omnieval.errors.MediaError`) means "skip this sample".
- :func:`plan_frame_indices` is the frame-sampling rule on its own.
"""

from __future__ import annotations

from omnieval.media.budget import BudgetExceeded, MediaBudget, fit_request_to_budget, plan_media_budget
from omnieval.media.cache import PIPELINE_VERSION, MediaCache
from omnieval.media.hashing import clear_fingerprint_memo, fingerprint, open_media, read_media
from omnieval.media.sampling import SamplingMode, plan_frame_indices

__all__ = [
    "PIPELINE_VERSION",
    "BudgetExceeded",
    "MediaBudget",
    "MediaCache",
    "SamplingMode",
    "clear_fingerprint_memo",
    "fingerprint",
    "fit_request_to_budget",
    "open_media",
    "plan_frame_indices",
    "plan_media_budget",
    "read_media",
]
