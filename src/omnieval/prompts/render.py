"""Sample → Request: templates, system prompt, few-shot demos, chain history, media placement."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from omnieval.prompts.renderers import RenderContext, renderers
from omnieval.prompts.templates import render_template
from omnieval.prompts.variants import variant_index
from omnieval.types import (
    AudioPart,
    ContentPart,
    GenerationConfig,
    ImagePart,
    MediaPolicy,
    MediaRef,
    Message,
    PromptVariant,
    Request,
    Sample,
    TaskSpec,
    TextPart,
    VideoPart,
)
from omnieval.types.content import plain_prompt

__all__ = [
    "build_request",
    "gold_answers",
    "options_block",
    "oracle_targets",
    "place_media",
    "render_messages",
]

_PART = {"image": ImagePart, "audio": AudioPart, "video": VideoPart}


def options_block(sample: Sample, spec: TaskSpec) -> str:
    """``A. first\\nB. second`` for multiple-choice samples, else empty."""
    if not sample.choices:
        return ""
    labels = spec.prompt.choice_labels
    return "\n".join(f"{labels[i]}. {choice}" for i, choice in enumerate(sample.choices))


def gold_answers(sample: Sample, spec: TaskSpec) -> tuple[Any, ...]:
    """Targets as the model should write them: the option letter for multiple choice."""
    if not sample.choices or not spec.prompt.target_as_label:
        return sample.targets
    labels = spec.prompt.choice_labels
    out: list[Any] = []
    for target in sample.targets:
        text = str(target)
        if text in sample.choices:
            out.append(labels[sample.choices.index(text)])
        elif len(text) == 1 and text.upper() in labels[: len(sample.choices)]:
            out.append(text.upper())
        elif text.isdigit() and int(text) < len(sample.choices):
            out.append(labels[int(text)])
        else:
            out.append(text)
    return tuple(out)


def oracle_targets(sample: Sample, spec: TaskSpec) -> tuple[str, ...]:
    """What the oracle baseline answers: the gold answers rendered by ``target_template``."""
    golds = gold_answers(sample, spec)
    template = spec.prompt.target_template
    if template is None:
        return tuple(str(g) for g in golds)
    return tuple(render_template(template, target=g, sample=sample) for g in golds)


def _variables(sample: Sample, spec: TaskSpec, history: Sequence[tuple[Sample, str]]) -> dict[str, Any]:
    return {
        "input": sample.input,
        "fields": sample.fields,
        "choices": sample.choices or (),
        "options_block": options_block(sample, spec),
        "metadata": sample.metadata,
        "sample": sample,
        "history": [{"sample": s, "answer": a} for s, a in history],
    }


def place_media(text: str, media: Sequence[MediaRef], *, blind: bool) -> str | tuple[ContentPart, ...]:
    """Split ``text`` at ``<name>`` placeholders; unplaced media go first; blind drops media."""
    if not media:
        return text
    by_name = {m.name: m for m in media}
    pattern = re.compile("<(" + "|".join(re.escape(n) for n in sorted(by_name, key=len, reverse=True)) + ")>")
    parts: list[ContentPart] = []
    used: set[str] = set()
    cursor = 0
    for match in pattern.finditer(text):
        if match.start() > cursor:
            parts.append(TextPart(text=text[cursor : match.start()]))
        ref = by_name[match.group(1)]
        used.add(ref.name)
        if not blind:
            parts.append(_PART[ref.kind](media=ref))
        cursor = match.end()
    if cursor < len(text):
        parts.append(TextPart(text=text[cursor:]))
    leading = [] if blind else [_PART[m.kind](media=m) for m in media if m.name not in used]
    merged = tuple(leading) + tuple(parts)
    if all(isinstance(p, TextPart) for p in merged):
        return "".join(p.text for p in merged if isinstance(p, TextPart))
    return merged


def _user_turn(sample: Sample, spec: TaskSpec, variant: PromptVariant, **kw: Any) -> Message:
    text = render_template(variant.template, **_variables(sample, spec, kw.get("history", ())))
    return Message(role="user", content=place_media(text, sample.media, blind=kw.get("blind", False)))


def render_messages(
    sample: Sample,
    spec: TaskSpec,
    *,
    variant: PromptVariant,
    demos: Sequence[Sample] = (),
    history: Sequence[tuple[Sample, str]] = (),
    blind: bool = False,
) -> tuple[Message, ...]:
    """The chat messages for one sample."""
    if spec.prompt.renderer is not None:
        ctx = RenderContext(spec=spec, variant=variant, demos=demos, history=history)
        messages: tuple[Message, ...] = renderers.get(spec.prompt.renderer.name)(
            sample, ctx, **spec.prompt.renderer.options
        )
        return _strip_media(messages) if blind else messages
    out: list[Message] = []
    system = variant.system or spec.prompt.system
    if system:
        out.append(
            Message(role="system", content=render_template(system, **_variables(sample, spec, history)))
        )
    for demo in demos:
        out.append(_user_turn(demo, spec, variant, blind=blind))
        answer = render_template(
            spec.prompt.fewshot.answer_template, target=gold_answers(demo, spec)[0], sample=demo
        )
        out.append(Message(role="assistant", content=answer))
    if spec.prompt.history == "messages":
        for earlier, answer in history:
            out.append(_user_turn(earlier, spec, variant, blind=blind))
            out.append(Message(role="assistant", content=answer))
    out.append(_user_turn(sample, spec, variant, history=history, blind=blind))
    return tuple(out)


def _strip_media(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    return tuple(Message(role=m.role, content=m.text) for m in messages)


def build_request(
    sample: Sample,
    spec: TaskSpec,
    *,
    position: int,
    seed: int,
    generation: GenerationConfig,
    media_policy: MediaPolicy,
    demos: Sequence[Sample] = (),
    history: Sequence[tuple[Sample, str]] = (),
    blind: bool = False,
) -> Request:
    """Render the request for the sample at ``position`` (its variant follows from the position)."""
    variants = spec.prompt.all_variants()
    variant = variants[variant_index(position, n_variants=len(variants), seed=seed)]
    messages = render_messages(sample, spec, variant=variant, demos=demos, history=history, blind=blind)
    loglik = spec.prompt.request_kind == "loglikelihood" and bool(sample.choices)
    return Request(
        task=spec.name,
        sample_id=sample.id,
        messages=messages,
        prompt=plain_prompt(messages) if spec.prompt.format == "completion" else None,
        kind="loglikelihood" if loglik else "generate",
        continuations=tuple(f" {c}" for c in sample.choices or ()) if loglik else (),
        choices=sample.choices,
        targets=oracle_targets(sample, spec) if sample.has_targets else (),
        variant=variant.id,
        generation=generation,
        blind=blind,
        media_policy=media_policy,
        language=_language(sample, spec),
    )


def _language(sample: Sample, spec: TaskSpec) -> str:
    """The sample's own language where its metadata names one, else the task's."""
    for key in ("language", "lang"):
        value = sample.metadata.get(key)
        if isinstance(value, str) and value:
            return value
    return spec.language
