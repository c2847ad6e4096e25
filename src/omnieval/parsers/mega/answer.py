"""MEGA-Bench's answer-string extraction, reproduced step for step (parity).

Pure text functions: the ``megabench`` parser (``omnieval.benchmarks.megabench.parser``) combines
them with the tolerant JSON reader. Each step mirrors the original's behaviour, quirks included:
only ``Answer:``/``answer:`` markers count (``ANSWER:`` does not), ``**Answer:** X`` yields an
empty answer, and the first-paragraph rule applies only to single-line gold answers.
"""

from __future__ import annotations

import re

__all__ = [
    "drop_additional_text",
    "extract_answer_content",
    "extract_code_block",
    "keep_last_answer",
]

_BOLD_OR_PLAIN = re.compile(r"\*\*?Answer:\s*(.*?)\*\*?|\bAnswer:\s*(.*)", re.DOTALL)
_BOLD_OR_PLAIN_RAW = re.compile(r"\*\*?Answer:(.*?)\*\*?|\bAnswer:(.*)", re.DOTALL)
_BLANK_RUNS = re.compile(r"^[ \t\r\f\v]*$(?:\n^[ \t\r\f\v]*$)+", re.MULTILINE)
_SHORT_ANSWER = re.compile(
    r"^(?:(?:[a-zA-Z0-9_-]+)(?:,\s*[a-zA-Z0-9_-]+)*|(?:[a-zA-Z0-9_-]+)\.|\((?:[a-zA-Z0-9_-]+)\)$)"
)


def keep_last_answer(text: str) -> str:
    """Map ``answer:`` to ``Answer:`` and delete every ``Answer:`` but the last one."""
    text = text.replace("answer:", "Answer:")
    last = text.rfind("Answer:")
    if last == -1:
        return text
    return text[:last].replace("Answer:", "") + text[last:]


def _collapse_blank_lines(text: str) -> str:
    # The original's ``^\s*$(\n^\s*$)+`` also lets ``\s`` span newlines; runs of blank lines
    # vanish either way. Restricting ``\s`` to same-line whitespace keeps this linear.
    return _BLANK_RUNS.sub("", text)


def extract_answer_content(text: str, *, keep_spacing: bool = False, trim: bool = True) -> str:
    """The content after the last ``Answer:`` (or ``**Answer: X**``), else the whole text.

    ``keep_spacing`` is the ASCII/verbatim mode: inner spacing kept, blank-line runs collapsed;
    ``trim=False`` (verbatim) keeps trailing spaces on the last line.
    """
    text = keep_last_answer(text)
    match = (_BOLD_OR_PLAIN_RAW if keep_spacing else _BOLD_OR_PLAIN).search(text)
    if match:
        text = match.group(1) or match.group(2) or ""
    if not keep_spacing:
        return text.strip()
    text = _collapse_blank_lines(text)
    text = text.rstrip() if trim else re.sub(r"(?:\n[ \t\r\f\v]*)+$", "", text)
    return re.sub(r"^(?:[ \t\r\f\v]*\n)+", "", text)


def extract_code_block(text: str, *, keep_spacing: bool = False, trim: bool = True) -> tuple[str, bool]:
    """Unwrap the first fenced code block; returns ``(content, was_code)``."""
    if keep_spacing:
        if not text.strip() or len(text) > 10000:
            text = text.rstrip()
        pattern = r"```\w*(?:\s*\n+)?(.*?)\s*```" if trim else r"```\w*(?:\s*\n+)?(.*?)(?:\n+\s*)?```"
    else:
        pattern = r"```\w*\s*\n*(.*?)\s*```"
    match = re.search(pattern, text, flags=re.DOTALL)
    if not match:
        return text, False
    return (match.group(1) if keep_spacing else match.group(1).strip()), True


def _is_multiline_answer(text: str) -> bool:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip():
            return not (i + 1 < len(lines) and lines[i + 1].strip() == "")
    return False


def drop_additional_text(text: str) -> str:
    """Keep only the first paragraph when it looks like a short answer (``B``, ``B.``, ``(B)``, a list)."""
    first = text.split("\n\n")[0].strip()
    if first and _SHORT_ANSWER.search(first) and not _is_multiline_answer(text):
        return first
    return text
