"""A dataset sample: what the source stage yields."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from omnieval.types._base import Frozen
from omnieval.types.content import MediaRef

__all__ = ["Sample"]


class Sample(Frozen):
    """One evaluation item, independent of any prompt or model."""

    id: str
    """Stable identifier, unique inside its task (MERA ``meta.id``, MEGA-Bench row ``id``)."""
    input: str = ""
    """The main question text; may contain media placeholders such as ``<image>``."""
    fields: dict[str, Any] = Field(default_factory=dict)
    """All raw input fields, available to prompt templates (``{{ fields.question }}``)."""
    targets: tuple[Any, ...] = ()
    """One or more gold answers; empty for prediction-only (hidden-answer) test sets."""
    choices: tuple[str, ...] | None = None
    """Answer options for multiple-choice items, in presentation order."""
    media: tuple[MediaRef, ...] = ()
    """Media inputs, placed in the prompt by their placeholders."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else: categories, group ids, keywords, eval context."""
    chain: str | None = None
    """Sequential dependency: samples sharing a chain run one at a time in ``chain_index`` order."""
    chain_index: int | None = None
    """Position of this sample inside its chain."""

    @property
    def has_targets(self) -> bool:
        """False for private test sets whose answers are hidden."""
        return any(t not in (None, "") for t in self.targets)
