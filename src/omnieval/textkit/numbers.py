"""Reading numbers the way people and models write them (Russian and English conventions).

Handled: decimal comma (``3,5``), thousands groups (``1 000 000``, ``1,234,567``, ``1.234.567``),
signs incl. U+2212, exponents (``1.5e-3``, ``1,5·10^{3}``), simple fractions (``3/4``, ``½``),
LaTeX ``\\frac``/``\\dfrac``, ``{,}``, ``\\%`` and ``\\boxed{...}``, percentages and trailing units.
A lone ``,ddd`` group is read as a decimal comma (``1,234`` = 1.234): the project is Russian-first.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from omnieval.textkit.marker import after_marker

__all__ = ["Number", "answer_region", "find_numbers", "parse_number"]

MAX_CHARS = 20_000
"""Only the last this many characters are scanned, which bounds the cost on runaway outputs."""

_FRAC_ARG = r"\{\s*([-+]?\d[\d.,]*(?:[ \u00a0]\d[\d.,]*)*)\s*\}"
_FRAC = re.compile(rf"\\[dt]?frac\s*{_FRAC_ARG}\s*{_FRAC_ARG}")
_LATEX_SUBS = (
    ("{,}", ","),
    ("\\,", ""),
    ("\\!", ""),
    ("\\ ", " "),
    ("\\%", "%"),
    ("\\cdot", "·"),
    ("\\times", "×"),
    ("\\left", ""),
    ("\\right", ""),
    ("$", " "),
)
_NUMBER = re.compile(
    r"(?<![\w.,])"
    r"(?:(?<![\w)\]])(?P<sign>[-+]))?"
    r"(?P<int>[1-9]\d{0,2}(?:(?P<sep>[ \u00a0\u202f\u2009,.])\d{3}(?![\d]))(?:(?P=sep)\d{3}(?!\d))*"
    r"(?:(?(sep)[.,])\d+)?"
    r"|\d+(?:[.,]\d+)?"
    r"|[.,]\d+)"
    r"(?:\s*(?:[eE](?P<exp>[-+]?\d+)|[·×*]\s*10\s*\^\s*\{?(?P<exp2>[-+]?\d+)\}?))?"
    r"(?:\s*/\s*(?P<den>\d+(?:[.,]\d+)?)(?![\d/]))?"
    r"(?P<pct>\s*%)?"
)


@dataclass(frozen=True, slots=True)
class Number:
    """A number found in text; ``percent`` when written with ``%``."""

    value: float
    percent: bool = False
    text: str = ""

    def candidates(self) -> tuple[float, ...]:
        """Values this number may stand for: ``50%`` is 50 or 0.5."""
        return (self.value, self.value / 100.0) if self.percent else (self.value,)


def _prepare(text: str) -> str:
    text = unicodedata.normalize("NFKC", text[-MAX_CHARS:]).replace("\u2212", "-").replace("\u2044", "/")
    if "\\" in text or "$" in text or "{" in text:
        text = _FRAC.sub(lambda m: f"{m.group(1).strip()}/{m.group(2).strip()}", text)
        for old, new in _LATEX_SUBS:
            text = text.replace(old, new)
    return text


def _to_float(body: str, sep: str | None) -> float:
    """Turn the digits of one match into a float, given the thousands separator it used."""
    if sep in (",", "."):
        other = "." if sep == "," else ","
        if body.count(sep) == 1 and other not in body:
            return float(body.replace(",", "."))  # a single ",ddd" group: decimal separator
        return float(body.replace(sep, "").replace(other, "."))
    if sep:
        body = body.replace(sep, "")
    return float(body.replace(",", "."))


def _match_value(m: re.Match[str]) -> Number:
    value = _to_float(m.group("int"), m.group("sep"))
    exp = m.group("exp") or m.group("exp2")
    if exp is not None:
        value *= 10.0 ** max(-308, min(308, int(exp)))
    den = m.group("den")
    if den is not None:
        d = float(den.replace(",", "."))
        value = value / d if d else math.inf
    if m.group("sign") == "-":
        value = -value
    return Number(value, percent=m.group("pct") is not None, text=m.group(0).strip())


def find_numbers(text: str) -> list[Number]:
    """Every number in ``text``, in order; non-finite values are dropped."""
    found = (_match_value(m) for m in _NUMBER.finditer(_prepare(text)))
    return [n for n in found if math.isfinite(n.value)]


def parse_number(text: str) -> Number | None:
    """The single number ``text`` states (units may follow); ``None`` when there is none or several."""
    numbers = find_numbers(text)
    return numbers[0] if len(numbers) == 1 else None


def _last_boxed(text: str) -> str | None:
    start = text.rfind("\\boxed")
    if start < 0:
        return None
    open_at = text.find("{", start)
    if open_at < 0:
        return None
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1 : i]
    return None


def answer_region(text: str) -> tuple[str, str]:
    """The part of a response that holds the final answer, and how it was chosen.

    The last ``\\boxed{}`` wins, then the text after the last ANSWER/ОТВЕТ marker, else all of it.
    """
    text = text[-MAX_CHARS:]
    boxed = _last_boxed(text)
    if boxed is not None:
        return boxed, "boxed"
    after = after_marker(text)
    if after:
        return after, "marker"
    return text, "whole"
