"""One sample → the request the backend receives (or why it is skipped).

Shared by the runner and ``omnieval run --dry-run``, so the preview is what a run sends: prompt
variant, few-shot demonstrations, chain history, media policy overrides and the media budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from omnieval.prompts import build_request
from omnieval.runner.context import TaskContext, pick_demos
from omnieval.types import Request, Sample

__all__ = ["Skip", "prepare_request"]


@dataclass(frozen=True)
class Skip:
    """The sample cannot be sent to this backend; it is recorded as ``skipped`` with this reason."""

    reason: str
    variant: str | None


def prepare_request(
    ctx: TaskContext,
    sample: Sample,
    *,
    position: int,
    history: Sequence[tuple[Sample, str]],
    seed: int,
    blind: bool,
    provider: str,
    modalities: frozenset[str],
    repeat: int | None = None,
) -> Request | Skip:
    """Render, check the backend's modalities and fit the media budget; raises OmnievalError on bad data."""
    request = build_request(
        sample,
        ctx.task.spec,
        position=position,
        seed=seed,
        generation=ctx.generation_at(repeat),
        media_policy=ctx.media_policy,
        demos=pick_demos(ctx.demo_pool, n=ctx.task.spec.prompt.fewshot.n, sample_id=sample.id, seed=seed),
        history=history,
        blind=blind,
    )
    if ctx.reasoning is not None:
        request = request.model_copy(update={"reasoning": ctx.reasoning})
    if repeat is not None:
        request = request.model_copy(update={"repeat": repeat})
    missing = {m.kind for m in request.media} - set(modalities)
    if missing:
        reason = (
            f"backend {provider!r} does not accept {', '.join(sorted(missing))} (use --blind for a "
            "text-only control)"
        )
        return Skip(reason, request.variant)
    if request.media:
        from omnieval.media import BudgetExceeded, fit_request_to_budget

        try:
            request, _ = fit_request_to_budget(request, demo_budget=request.media_policy.demo_max_images)
        except BudgetExceeded as exc:
            return Skip(str(exc), request.variant)
    return request
