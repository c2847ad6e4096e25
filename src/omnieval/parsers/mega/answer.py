"""MEGA-Bench's answer-string extraction, reproduced step for step (parity).

Pure text functions: the ``megabench`` parser (``omnieval.benchmarks.megabench.parser``) combines
them with the tolerant JSON reader. Each step mirrors the original's behaviour, quirks included:
only ``Answer:``/``answer:`` markers count (``ANSWER:`` does not), ``**Answer:** X`` yields an
empty answer, and the first-paragraph rule applies only to single-line gold answers. Code-fence
unwrapping is ``omnieval.benchmarks.megabench.metrics._convert.fenced_block`` (the ``code_result`` metric
needs it
too, and a parser module may not import a metric module). The original's regexes that backtrack
badly on hostile text are replaced by linear scans returning the same match.
"""

from __future__ import annotations

import re

__all__ = ["drop_additional_text", "extract_answer_content", "keep_last_answer"]

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


def _answer_span(text: str, *, skip_space: bool) -> str | None:
    """What ``\\*\\*?Answer:\\s*(.*?)\\*\\*?|\bAnswer:\\s*(.*)`` (DOTALL) captures, in linear time.

    The bold form wins when a ``*`` follows the marker (capturing up to that star); otherwise the
    plain form captures the rest of the text, provided ``Answer:`` starts a word. ``skip_space=False``
    is the ASCII form of the pattern, without ``\\s*``.
    """
    at = text.find("Answer:")
    while at >= 0:
        content = at + len("Answer:")
        if skip_space:
            while content < len(text) and text[content].isspace():
                content += 1
        bold = at > 0 and text[at - 1] == "*"
        star = text.find("*", content) if bold else -1
        if star >= 0:
            return text[content:star]
        if at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_"):
            return text[content:]
        at = text.find("Answer:", at + 1)
    return None


def _collapse_blank_lines(text: str) -> str:
    # The original's ``^\s*$(\n^\s*$)+`` also lets ``\s`` span newlines; runs of blank lines
    # vanish either way. Restricting ``\s`` to same-line whitespace keeps this linear.
    return _BLANK_RUNS.sub("", text)


def _drop_trailing_blank_lines(text: str) -> str:
    """``re.sub(r"(\n\\s*)+$", "", text)`` without its quadratic backtracking."""
    kept = text.rstrip()
    newline = text.find("\n", len(kept))
    return text[:newline] if newline >= 0 else text


def _drop_leading_blank_lines(text: str) -> str:
    """``re.sub(r"^(\\s*\n)+", "", text)``: whitespace-only leading lines go."""
    body = text.lstrip()
    newline = text.rfind("\n", 0, len(text) - len(body))
    return text[newline + 1 :] if newline >= 0 else text


def extract_answer_content(text: str, *, keep_spacing: bool = False, trim: bool = True) -> str:
    """The content after the last ``Answer:`` (or ``**Answer: X**``), else the whole text.

    ``keep_spacing`` is the ASCII/verbatim mode: inner spacing kept, blank-line runs collapsed;
    ``trim=False`` (verbatim) keeps trailing spaces on the last line.
    """
    text = keep_last_answer(text)
    span = _answer_span(text, skip_space=not keep_spacing)
    if span is not None:
        text = span
    if not keep_spacing:
        return text.strip()
    text = _collapse_blank_lines(text)
    text = text.rstrip() if trim else _drop_trailing_blank_lines(text)
    return _drop_leading_blank_lines(text)


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
