"""Option-letter extraction for multiple-choice answers: strict and lenient, never mixed.

Strict (MARKER's protocol, "letter only") accepts only a bare letter, optionally followed by one of
``.)!:;,``; "(B)", "**B**", "[B]" and "Ответ: B" are not bare and fail. Zero-width characters
(U+200B-U+200D, U+2060, U+FEFF) are dropped first in both modes: they are invisible, not content.
Lenient also reads common shapes ("(B)", "B) text", "Answer: B", "Ответ: Б", "The answer is **C**",
the text of exactly one option, the one option equal to the answer's final number, and finally the
one valid upper-case Latin letter standing alone as a word, "Скорее всего B, но я не уверен"). A
marker word must end where its word ends, so "варианта"/"ответа" never read as option A. Cyrillic and
Latin look-alikes (А/A, В/B, С/C, Е/E, ...) fold onto the label they look like, so "Ответ: В" with
Latin labels is B; a letter of the other script that looks like no label (Б with Latin labels) is
not guessed.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from omnieval.textkit.normalize import normalize_text
from omnieval.textkit.numbers import answer_region, find_numbers, parse_number

__all__ = ["ChoiceHit", "find_choice", "gold_label"]

_HOMOGLYPHS = dict(zip("АВСЕНКМОРТХ", "ABCEHKMOPTX", strict=True))
_HOMOGLYPHS |= {v: k for k, v in _HOMOGLYPHS.items()}
MAX_CHARS = 20_000
_CONTINUES = re.compile(r"[ \t]+\w")
_MARKERS = r"(?:(answer|ответ)|option|choice|вариант)(?:\s+is)?(?!\w)"
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
_LONE_LATIN = re.compile(r"(?<!\w)([A-Z])(?!\w)")


@dataclass(frozen=True, slots=True)
class ChoiceHit:
    """The label found (``None`` on failure) and how it was found, or why not."""

    label: str | None
    how: str


@dataclass(frozen=True)
class _Table:
    fold: dict[str, str]
    upper: str
    strict: re.Pattern[str]
    marker: re.Pattern[str]
    leading: re.Pattern[str]
    bracketed: re.Pattern[str]


def _glyphs(label: str) -> set[str]:
    out = {label, label.lower(), label.upper()}
    twin = _HOMOGLYPHS.get(label.upper())
    if twin is not None:
        out |= {twin, twin.lower()}
    return out


@functools.lru_cache(maxsize=64)
def _table(labels: str) -> _Table:
    fold = {g: label for label in reversed(labels) for g in _glyphs(label)}
    any_cls = "[" + re.escape("".join(sorted(fold))) + "]"
    up_cls = "[" + re.escape("".join(sorted(g for g in fold if g.isupper() or not g.isalpha()))) + "]"
    # no two adjacent repeats may match the same characters: whitespace runs must not backtrack
    return _Table(
        fold=fold,
        upper=up_cls,
        strict=re.compile(rf"\s*({any_cls})[.)!:;,]?\s*"),
        marker=re.compile(
            rf"(?<!\w){_MARKERS}[\s:：\-—–=*_\"'«(\[]*(?P<label>{any_cls})(?!\w)", re.IGNORECASE
        ),
        leading=re.compile(rf"\s*[*_]*(?:[(\[]\s*)?({any_cls})\s*(?:[).:\]](?!\s*\w\.)|\s[-—–]\s)"),
        bracketed=re.compile(rf"\(({up_cls})\)|\[({up_cls})\]|\*\*({up_cls})\*\*"),
    )


def _valid(labels: str, n_options: int | None) -> str:
    return labels[:n_options] if n_options is not None else labels


def _check(label: str, labels: str, how: str) -> ChoiceHit:
    if label in labels:
        return ChoiceHit(label, how)
    return ChoiceHit(None, f"letter {label} is not one of the {len(labels)} options ({labels})")


def _bare(text: str) -> str:
    return text.strip().strip("*_`\"'«»()[] \t\r\n").rstrip(".)!:;,").strip()


def _marker_hits(text: str, table: _Table) -> list[str]:
    """Labels named after a marker; those after ANSWER/ОТВЕТ outrank "option"/"вариант" mentions.

    A Cyrillic letter followed by more words ("Ответ: В данном случае", "ответ: в 1812 году") is a
    Russian word, not an option; a Latin one may go on ("The answer is B because ...").
    """
    strong: list[str] = []
    weak: list[str] = []
    for m in table.marker.finditer(text):
        letter = m.group("label")
        if not letter.isascii() and _CONTINUES.match(text, m.end()):
            continue
        (strong if m.group(1) else weak).append(table.fold[letter])
    return strong or weak


def _lenient(text: str, table: _Table, valid: str, choices: Sequence[str] | None) -> ChoiceHit:
    bare = _bare(text)
    if bare in table.fold:
        return _check(table.fold[bare], valid, "bare")
    hits = _marker_hits(text, table)
    if hits:
        return _check(hits[-1], valid, "marker")
    found = {table.fold[g] for m in table.bracketed.finditer(text) for g in m.groups() if g}
    found &= set(valid)
    if len(found) > 1:
        return ChoiceHit(None, f"ambiguous: options {', '.join(sorted(found))} all marked")
    lead = table.leading.match(text)
    if lead:
        return _check(table.fold[lead.group(1)], valid, "leading")
    if found:
        return ChoiceHit(found.pop(), "bracketed")
    return _by_text(text, valid, choices) or _lone_letter(text, valid)


def _lone_letter(text: str, valid: str) -> ChoiceHit:
    """The one valid upper-case Latin letter that stands alone as a word ("Итак, B", "C C").

    Cyrillic letters are left out: lone А, В, С are Russian words ("А здесь", "в 1812"). Two different
    letters are ambiguous ("B, потому что A не подходит"), never guessed.
    """
    found = sorted({m.group(1) for m in _LONE_LATIN.finditer(text)} & set(valid))
    if len(found) == 1:
        return ChoiceHit(found[0], "lone_letter")
    if found:
        return ChoiceHit(None, f"ambiguous: letters {', '.join(found)} all stand alone")
    return ChoiceHit(None, "no option letter found")


def _by_text(text: str, valid: str, choices: Sequence[str] | None) -> ChoiceHit | None:
    """The one option whose text (or number) the answer gives; ``None`` when no option is named."""
    if choices:
        said = f" {normalize_text(text)} "
        named = [
            valid[i]
            for i, c in enumerate(choices[: len(valid)])
            if (n := normalize_text(c)) and f" {n} " in said
        ]
        if len(named) == 1:
            return ChoiceHit(named[0], "choice_text")
        if len(named) > 1:
            return ChoiceHit(None, f"ambiguous: the texts of options {', '.join(named)} all appear")
        by_number = _by_number(text, valid, choices)
        if by_number is not None:
            return ChoiceHit(by_number, "choice_number")
    return None


def _by_number(text: str, valid: str, choices: Sequence[str]) -> str | None:
    """The one option whose number equals the answer's final number (numeric MC: "20 м/с" → "20")."""
    region, _ = answer_region(text)
    numbers = find_numbers(region)
    if not numbers:
        return None
    said = numbers[-1].candidates()
    hits = []
    for label, choice in zip(valid, choices, strict=False):
        option = parse_number(choice)
        if option is not None and any(
            math.isclose(v, option.value, rel_tol=1e-9, abs_tol=1e-12) for v in said
        ):
            hits.append(label)
    return hits[0] if len(hits) == 1 else None


def find_choice(
    text: str,
    *,
    labels: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    choices: Sequence[str] | None = None,
    strict: bool = False,
) -> ChoiceHit:
    """Find the chosen option label in ``text``; the number of options is ``len(choices)`` when given."""
    table = _table(labels)
    valid = _valid(labels, len(choices) if choices else None)
    text = text[-MAX_CHARS:].translate(_INVISIBLE)
    if strict:
        m = table.strict.fullmatch(text)
        if m is None:
            return ChoiceHit(None, "not a bare option letter")
        return _check(table.fold[m.group(1)], valid, "strict")
    return _lenient(text, table, valid, choices)


def gold_label(target: Any, *, labels: str, choices: Sequence[str] | None) -> str | None:
    """The label a gold target stands for: an index, a label (look-alikes folded) or an option text."""
    valid = _valid(labels, len(choices) if choices else None)
    if isinstance(target, bool):
        return None
    if isinstance(target, int):
        return valid[target] if 0 <= target < len(valid) else None
    if not isinstance(target, str):
        return None
    text = target.strip()
    label = _table(labels).fold.get(text)
    if label is not None:
        return label if label in valid else None
    if choices:
        norm = normalize_text(text)
        for i, choice in enumerate(choices[: len(valid)]):
            if choice == text or normalize_text(choice) == norm:
                return valid[i]
    return None
