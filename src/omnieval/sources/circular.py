"""CircularEval (MMBench, used by MARKER): ask an N-option question N times, options rotated.

Transform ``circular`` turns a multiple-choice sample into N samples ``<id>#rot<k>`` whose options
are shifted left by k (rotation 0 is the original order), with the gold answer remapped and
``metadata.circular_group=<id>``, ``metadata.rotation=k``. Scoring the task with aggregation
``group_all`` (``key: circular_group``) then credits an item only if every rotation is right.
Prompts must show the options through ``choices``/``options_block``, which the rotation changes.
"""

from __future__ import annotations

from typing import Any

from omnieval.errors import SourceError
from omnieval.sources.plugins import register_transform
from omnieval.types import Sample

__all__ = ["GROUP_KEY", "ROTATION_KEY", "circular", "rotate_target"]

GROUP_KEY = "circular_group"
ROTATION_KEY = "rotation"
DEFAULT_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def rotate_target(
    target: Any, *, n: int, k: int, labels: str, choices: tuple[str, ...], sample_id: str
) -> Any:
    """The gold answer after shifting options left by ``k``, in the shape it was given.

    Option texts stay as they are; a label (``"B"``), an index (``1``) or a digit string (``"1"``)
    moves to the option's new position.
    """
    if isinstance(target, str) and target in choices:
        return target
    if isinstance(target, int) and not isinstance(target, bool) and 0 <= target < n:
        return (target - k) % n
    if isinstance(target, str):
        text = target.strip()
        if len(text) == 1 and text.upper() in labels[:n]:
            new = labels[(labels.index(text.upper()) - k) % n]
            return new if text.isupper() else new.lower()
        if text.isdigit() and int(text) < n:
            return str((int(text) - k) % n)
    raise SourceError(
        f"circular: gold target {target!r} is neither an option text, a label from {labels[:n]!r} "
        f"nor an index below {n}",
        sample_id=sample_id,
        field="targets",
    )


@register_transform("circular")
def circular(sample: Sample, /, *, labels: str = DEFAULT_LABELS) -> list[Sample]:
    """N copies of an N-option sample, options rotated, gold remapped, grouped by the original id."""
    choices = sample.choices
    if not choices:
        raise SourceError(
            "circular: the sample has no answer options to rotate", sample_id=sample.id, field="choices"
        )
    n = len(choices)
    if n > len(labels):
        raise SourceError(
            f"circular: {n} options but only {len(labels)} labels ({labels!r})",
            sample_id=sample.id,
            field="choices",
        )
    out: list[Sample] = []
    for k in range(n):
        targets = tuple(
            rotate_target(t, n=n, k=k, labels=labels, choices=choices, sample_id=sample.id)
            for t in sample.targets
        )
        out.append(
            sample.model_copy(
                update={
                    "id": f"{sample.id}#rot{k}",
                    "choices": choices[k:] + choices[:k],
                    "targets": targets,
                    "metadata": {**sample.metadata, GROUP_KEY: sample.id, ROTATION_KEY: k},
                }
            )
        )
    return out
