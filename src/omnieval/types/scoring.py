"""What a metric sees for one sample."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from omnieval.types._base import Frozen
from omnieval.types.agent import Episode
from omnieval.types.audio import SpokenAudio

__all__ = ["ScoringInput"]


class ScoringInput(Frozen):
    """A metric's whole view of one sample: pure data, no run state."""

    response: str
    """The model's answer text (reasoning stripped)."""
    prediction: Any = None
    """The parser's extracted value (or the parse fallback)."""
    parsed: bool = True
    targets: tuple[Any, ...] = ()
    choices: tuple[str, ...] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    judgements: dict[str, float] = Field(default_factory=dict)
    episode: Episode | None = None
    """The agent episode (tasks with ``agent:``): final-state metrics read ``episode.final_state``."""
    audio: SpokenAudio | None = None
    """A spoken answer's record (file, measures, transcript): the metric ``mos`` reads its measures."""
    """Judge values by key (e.g. ``{"js": 1.0}``); set for the metrics of ``TaskSpec.judge.metrics``."""
