"""Request → prompt text (through the model's chat template) plus its media, shared by hf and vLLM.

When neither the processor nor the tokenizer carries a chat template (base models such as
Gemma 3 270M in GGUF form), :data:`FALLBACK_CHAT_TEMPLATE` is used: a plain completion-style
rendering that joins the messages' texts with blank lines and adds nothing for the answer turn,
so the task's own wording (``Answer:`` / ``Ответ:``) is what the model continues.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omnieval.backends._tool_text import template_messages, template_takes_tools, template_tools
from omnieval.errors import BackendError
from omnieval.types import AudioPart, ImagePart, Message, Request, TextPart, VideoPart

__all__ = [
    "FALLBACK_CHAT_TEMPLATE",
    "BuiltPrompt",
    "build_prompt",
    "chat_template_of",
    "to_hf_messages",
]

FALLBACK_CHAT_TEMPLATE = (
    "{%- for m in messages -%}"
    "{%- if m.content is string -%}{{ m.content }}"
    "{%- else -%}{%- for p in m.content if p.type == 'text' -%}{{ p.text }}{%- endfor -%}{%- endif -%}"
    "{%- if not loop.last %}\n\n{% endif -%}"
    "{%- endfor -%}"
)
"""Completion-style template for models without one: message texts joined by a blank line."""


@dataclass
class BuiltPrompt:
    """What a local engine needs for one request."""

    text: str
    template: str
    """``model``, ``override``, ``fallback`` or ``completion`` (``Request.prompt`` used as is)."""
    media_kinds: list[str] = field(default_factory=list)
    """Kinds of the media parts in order, after video→frames expansion."""


def template_reasoning_mapping(reasoning: Any) -> dict[str, Any]:
    """How hf/ and vllm/ send reasoning controls: ``enable_thinking=True`` to a chat template that reads
    it."""
    if reasoning is None:
        return {}
    return {
        "sent": {"chat_template_kwargs": {"enable_thinking": True}},
        "note": "only when the model's chat template uses enable_thinking (Qwen3-style); effort and budget "
        "have no template field and are not sent",
    }


def chat_template_of(*owners: Any) -> str | None:
    """The first chat template found on a processor or tokenizer."""
    for owner in owners:
        tmpl = getattr(owner, "chat_template", None) if owner is not None else None
        if isinstance(tmpl, str) and tmpl.strip():
            return tmpl
    return None


def _part(part: Any, *, video_frames: list[int], frames_as_images: bool) -> list[dict[str, Any]]:
    if isinstance(part, TextPart):
        return [{"type": "text", "text": part.text}]
    if isinstance(part, ImagePart):
        return [{"type": "image"}]
    if isinstance(part, AudioPart):
        return [{"type": "audio"}]
    if isinstance(part, VideoPart) and frames_as_images:
        return [{"type": "image"} for _ in range(video_frames.pop(0))]
    return [{"type": "video"}]


def to_hf_messages(
    messages: tuple[Message, ...], *, video_frames: list[int] | None = None
) -> list[dict[str, Any]]:
    """Our messages as transformers chat dicts; text-only messages keep string content.

    With ``video_frames`` (frame count per video, in order) each video becomes that many image
    parts, for models whose processor takes images but no video.
    """
    frames = list(video_frames or [])
    out: list[dict[str, Any]] = []
    for msg in messages:
        if isinstance(msg.content, str) or all(isinstance(p, TextPart) for p in msg.content):
            out.append({"role": msg.role, "content": msg.text})
            continue
        parts: list[dict[str, Any]] = []
        for p in msg.content:
            parts.extend(_part(p, video_frames=frames, frames_as_images=video_frames is not None))
        out.append({"role": msg.role, "content": parts})
    return out


def _render_fallback(messages: list[dict[str, Any]], template: str, *, tools: list[Any] | None = None) -> str:
    import jinja2

    env = jinja2.Environment(autoescape=False, keep_trailing_newline=True)
    extra = {"tools": tools} if tools else {}
    return env.from_string(template).render(messages=messages, add_generation_prompt=True, **extra)


def build_prompt(
    request: Request,
    *,
    processor: Any,
    tokenizer: Any,
    override: str | None = None,
    video_frames: list[int] | None = None,
) -> BuiltPrompt:
    """Render ``request`` to the exact text the model sees.

    ``Request.prompt`` (completion format) is used verbatim. Otherwise the chat template comes from
    ``override``, the processor, the tokenizer, or the documented fallback, in that order.
    """
    msgs = to_hf_messages(request.messages, video_frames=video_frames)
    kinds = [
        p["type"] for m in msgs if isinstance(m["content"], list) for p in m["content"] if p["type"] != "text"
    ]
    if request.prompt is not None:
        return BuiltPrompt(text=request.prompt, template="completion", media_kinds=kinds)
    if override is not None:
        if request.tools:
            tools = template_tools(request)
            text = _render_fallback(template_messages(request.messages, msgs), override, tools=tools)
            return BuiltPrompt(text=text, template="override", media_kinds=kinds)
        return BuiltPrompt(text=_render_fallback(msgs, override), template="override", media_kinds=kinds)
    model_template = chat_template_of(processor, tokenizer)
    if model_template is None:
        if kinds:
            raise BackendError(
                f"sample {request.sample_id!r}: the model has no chat template to place its {kinds[0]} "
                "input; "
                "set options.extra['chat_template']",
                retryable=False,
            )
        return BuiltPrompt(text=_render_fallback(msgs, FALLBACK_CHAT_TEMPLATE), template="fallback")
    owner = processor if chat_template_of(processor) else tokenizer
    thinking: dict[str, Any] = (
        {"enable_thinking": True}
        if request.reasoning is not None and "enable_thinking" in model_template
        else {}
    )
    if request.tools:  # tools reach a local model only through its chat template
        if not template_takes_tools(model_template):
            raise BackendError(
                f"sample {request.sample_id!r}: the model's chat template takes no tools", retryable=False
            )
        msgs = template_messages(request.messages, msgs)
        thinking = {**thinking, "tools": template_tools(request)}
    text = owner.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False, **thinking)
    if isinstance(text, list):
        text = text[0]
    return BuiltPrompt(text=str(text), template="model", media_kinds=kinds)
