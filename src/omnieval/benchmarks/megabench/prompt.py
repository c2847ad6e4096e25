"""The ``megabench`` prompt renderer: task instruction, 1-shot demo, question, media interleaved.

The prompt is the paper's (Figs. 11-12) and the original repository's ``prompt.json``::

    <task description, global media at their placeholders>
    <example_text: "Demonstration example(s) of the task:" ... demo media ... instruction>
    Question: <query text, query media at their placeholders>

The dataset's ``example_text`` is the already-rendered demo block. ``cot=True``/``False`` rewrites
it into the CoT / non-CoT form (response line and closing instruction); without the option it is
used as is. Text chunks are stripped and joined with newlines, as the original sends them.
"""

from __future__ import annotations

import re
from typing import Any

from omnieval.prompts.renderers import RenderContext, register_renderer
from omnieval.types import ContentPart, ImagePart, MediaRef, Message, Sample, TextPart, VideoPart

__all__ = ["COT_INSTRUCTION", "PLAIN_INSTRUCTION", "convert_demo", "detect_cot", "render_megabench"]

COT_INSTRUCTION = (
    "Answer the new question below. The last part of your response should be of the following format: "
    '"Answer: <YOUR ANSWER>" (without angle brackets) where YOUR ANSWER is your answer, following the same '
    "task logic and output format of the demonstration example(s). For your answer, do not output additional "
    "contents that violate the specified format. Think step by step before answering."
)
PLAIN_INSTRUCTION = (
    "Answer the new question below, following the same task logic and output format of the demonstration "
    "example(s). Do not output additional contents that violate the specified format."
)
COT_RESPONSE = "Example Response:\n[PLEASE OUTPUT YOUR REASONING]\nAnswer: "
_SAME_LOGIC = "following the same task logic and output format"
_SAME_FORMAT = "following the same output format"
INSTRUCTION_PAIRS = (
    (COT_INSTRUCTION, PLAIN_INSTRUCTION),
    (
        COT_INSTRUCTION.replace(_SAME_LOGIC, _SAME_FORMAT),
        PLAIN_INSTRUCTION.replace(_SAME_LOGIC, _SAME_FORMAT),
    ),
)
"""(CoT, non-CoT) closing instructions, with and without demo media (the original's prompt.json)."""
_PLACEHOLDER = re.compile(r"(<image>|<video>)")


def detect_cot(example_text: str) -> bool | None:
    """True for a CoT demo block, False for a plain one, None when there is no demo."""
    if not example_text.strip():
        return None
    return "[PLEASE OUTPUT YOUR REASONING]" in example_text or any(
        c in example_text for c, _ in INSTRUCTION_PAIRS
    )


def convert_demo(example_text: str, *, cot: bool, single_field: bool) -> str:
    """Rewrite a rendered demo block into the CoT or the non-CoT template."""
    if not example_text.strip() or detect_cot(example_text) is cot:
        return example_text
    plain_response = "Example Response: Answer: " if single_field else "Example Response: "
    text = example_text
    for with_cot, without in INSTRUCTION_PAIRS:
        text = text.replace(without, with_cot) if cot else text.replace(with_cot, without)
    return text.replace(plain_response, COT_RESPONSE) if cot else text.replace(COT_RESPONSE, plain_response)


def _media_part(ref: MediaRef) -> ContentPart:
    return VideoPart(media=ref) if ref.kind == "video" else ImagePart(media=ref)


def _interleave(sections: list[tuple[str, list[MediaRef]]]) -> tuple[ContentPart, ...]:
    parts: list[ContentPart] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            parts.append(TextPart(text="\n".join(pending) + "\n"))
            pending.clear()

    for text, media in sections:
        queue = list(media)
        for chunk in _PLACEHOLDER.split(text):
            if chunk in ("<image>", "<video>"):
                flush()
                parts.append(_media_part(queue.pop(0)))
            elif chunk.strip():
                pending.append(chunk.strip())
    flush()
    if parts and isinstance(parts[-1], TextPart):
        parts[-1] = TextPart(text=parts[-1].text.rstrip("\n"))
    return tuple(parts)


@register_renderer("megabench")
def render_megabench(
    sample: Sample, ctx: RenderContext, /, *, cot: bool | None = None
) -> tuple[Message, ...]:
    """One user message in MEGA-Bench's layout (``cot`` rewrites the demo block; None keeps it)."""
    fields: dict[str, Any] = sample.fields
    counts = list(sample.metadata.get("megabench_media_counts") or [0, 0, len(sample.media)])
    media = list(sample.media)
    n_global, n_demo = counts[0], counts[1]
    demo = str(fields.get("example_text") or "")
    if cot is not None:
        gold = sample.targets[0] if sample.targets and isinstance(sample.targets[0], dict) else {}
        single = len([k for k in gold if not str(k).startswith("##")]) <= 1
        demo = convert_demo(demo, cot=cot, single_field=single)
    sections = [
        (str(fields.get("task_description") or ""), media[:n_global]),
        (demo, media[n_global : n_global + n_demo]),
        ("Question: " + str(fields.get("query_text") or sample.input), media[n_global + n_demo :]),
    ]
    content = _interleave(sections)
    if all(isinstance(p, TextPart) for p in content):
        return (Message(role="user", content="".join(p.text for p in content if isinstance(p, TextPart))),)
    return (Message(role="user", content=content),)
