"""ruTiE dialogues: every turn carries the earlier turns with the model's OWN answers.

As in MERA's context former, an earlier turn is shown compactly (media, question, options,
``Ответ:``) and the model's answer is reduced to its option letter by MERA's own rule: the first
Latin ``\b([A-D])\b`` anywhere in the answer, ``-1`` when none is found;
the current turn is the full published instruction. The runner runs a dialogue strictly in order.
"""

from __future__ import annotations

import re

from omnieval.prompts import place_media
from omnieval.prompts.renderers import RenderContext, register_renderer
from omnieval.types import Message, Sample

__all__ = ["answer_letter", "compact_turn", "render_rutie"]

_LETTER = re.compile(r"\b([A-D])\b")


def answer_letter(answer: str) -> str:
    """The first standalone Latin A-D in the answer, or ``-1`` (MERA's ``RegexFilter`` in rutie utils.py).

    No marker preference and no Cyrillic letters: ``В``/``А``/``С`` are Russian words far more often
    than options, and MERA's history shows the model exactly this letter.
    """
    match = _LETTER.search(answer)
    return match.group(1) if match else "-1"


def compact_turn(sample: Sample) -> str:
    """An earlier turn as MERA shows it in the history: media, question, options, ``Ответ:``."""
    lines = [f"<{m.name}>" for m in sample.media]
    question = str(sample.fields.get("question") or "").strip()
    if question:
        lines.append(question)
    lines.extend(f"{chr(ord('A') + i)}. {c}" for i, c in enumerate(sample.choices or ()))
    lines.append("Ответ:")
    return "\n".join(lines)


@register_renderer("mera_rutie")
def render_rutie(
    sample: Sample, ctx: RenderContext, /, *, max_history: int | None = None
) -> tuple[Message, ...]:
    """System prompt (if any), earlier turns with the model's own letters, then this turn."""
    out: list[Message] = []
    system = ctx.variant.system or ctx.spec.prompt.system
    if system:
        out.append(Message(role="system", content=system))
    history = list(ctx.history)[-max_history:] if max_history else list(ctx.history)
    for earlier, answer in history:
        out.append(
            Message(role="user", content=place_media(compact_turn(earlier), earlier.media, blind=False))
        )
        out.append(Message(role="assistant", content=answer_letter(answer)))
    out.append(Message(role="user", content=place_media(sample.input, sample.media, blind=False)))
    return tuple(out)
