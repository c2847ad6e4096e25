"""Prompt stage: Sample → Request (templates, variants, few-shot, history, media placement)."""

from omnieval.prompts.render import (
    build_request,
    gold_answers,
    options_block,
    oracle_targets,
    place_media,
    render_messages,
)
from omnieval.prompts.renderers import RenderContext, register_renderer, renderers
from omnieval.prompts.variants import variant_index

__all__ = [
    "RenderContext",
    "build_request",
    "gold_answers",
    "options_block",
    "oracle_targets",
    "place_media",
    "register_renderer",
    "render_messages",
    "renderers",
    "variant_index",
]
