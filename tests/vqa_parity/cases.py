"""Generated and hand-picked inputs shared by the parity tests (seeded, so every run is the same)."""

from __future__ import annotations

import random

NUMBERISH = [
    "12",
    "12.0",
    "12.6",
    "11.4",
    "12%",
    "0.12",
    "1,000",
    "1000",
    "1e3",
    " 12\n",
    "12.",
    "$12",
    "12 %",
    "0",
    "0.0",
    "-0",
    "nan",
    "inf",
    "-5",
    "5",
    "1_000",
    "",
    " ",
    "twelve",
    "Twelve",
    "TWELVE",
    "12 million",
    "４２",
    "42",
    "%",
    "5%%",
    "0.05",
    "1.05",
    "0.95",
    "100%",
    "Yes",
    "yes",
    "No",
]
WORDY = [
    "the cat",
    "The Cat.",
    "a dog",
    "two",
    "2",
    "none",
    "0",
    "can't",
    "cant",
    "it's red",
    "its red",
    "coca-cola",
    "coca cola",
    "coca - cola",
    "5.5",
    "5.",
    "e.g. test",
    "a.b.c.d",
    "don't",
    "dont",
    "hello, world",
    "1,000",
    "10,000.5",
    "what?",
    "(yes)",
    "yes!",
    "new\nline",
    "tab\there",
    "  spaced  ",
    "STOP",
    "stop",
    "Mr. Smith's",
    "100 km/h",
    "100 km / h",
    "x@y",
    "ß",
    "straße",
    "İstanbul",
    "",
    "...",
    "a." * 40,
    "<b>",
    "[1]",
    "#1",
    "$5",
    "50%",
    "10:30",
    "o'clock",
    "oclock",
]


def rng(seed: int = 36) -> random.Random:
    return random.Random(seed)


def mutations(text: str, r: random.Random, n: int = 4) -> list[str]:
    """Near misses of ``text``: case, spacing, punctuation and one-character edits."""
    out = [text, text.upper(), f" {text} ", text + ".", text.replace(" ", "  "), text + "\n"]
    alphabet = "abcxyz 019.,-'"
    for _ in range(n):
        chars = list(text)
        if chars and r.random() < 0.5:
            del chars[r.randrange(len(chars))]
        chars.insert(r.randrange(len(chars) + 1), r.choice(alphabet))
        out.append("".join(chars))
    return out
