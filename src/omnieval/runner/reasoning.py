"""Separating reasoning (``<think>…</think>`` and similar) from the answer before parsing."""

from __future__ import annotations

import re

__all__ = ["split_reasoning"]

_TAGS = ("think", "thinking", "reasoning", "reflection")
_BLOCK = re.compile(r"<(" + "|".join(_TAGS) + r")>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
_CLOSE = re.compile(r"</(" + "|".join(_TAGS) + r")>", re.IGNORECASE)
_OPEN = re.compile(r"<(" + "|".join(_TAGS) + r")>", re.IGNORECASE)


def split_reasoning(text: str) -> tuple[str, str | None]:
    """Return ``(answer, reasoning)``; ``reasoning`` is None when the text has none.

    Handles closed blocks anywhere, a closing tag without its opening one (templates that put
    ``<think>`` in the prompt) and an unclosed opening tag (reasoning cut off: the answer is empty).
    """
    if "<" not in text:
        return text, None
    found = [m.group(2).strip() for m in _BLOCK.finditer(text)]
    answer = _BLOCK.sub("", text)
    closes = list(_CLOSE.finditer(answer))
    close = closes[-1] if closes else None
    if close is not None:
        found.append(answer[: close.start()].strip())
        answer = answer[close.end() :]
    opened = _OPEN.search(answer)
    if opened is not None:
        found.append(answer[opened.end() :].strip())
        answer = answer[: opened.start()]
    if not found:
        return text, None
    return answer.strip(), "\n\n".join(f for f in found if f)
