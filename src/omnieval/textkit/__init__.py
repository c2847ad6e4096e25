"""Pure-stdlib text helpers shared by parsers and metrics (which may not import each other).

Normalisation, answer-marker splitting, number reading and option-letter extraction live here
once, so a parser and the metric that re-parses a raw response agree exactly.
"""

from omnieval.textkit.choices import ChoiceHit, find_choice, gold_label
from omnieval.textkit.marker import after_marker, has_marker
from omnieval.textkit.nesting import nesting_depth
from omnieval.textkit.normalize import normalize_text, strip_punctuation, tokens
from omnieval.textkit.numbers import answer_region, find_numbers, parse_number

__all__ = [
    "ChoiceHit",
    "after_marker",
    "answer_region",
    "find_choice",
    "find_numbers",
    "gold_label",
    "has_marker",
    "nesting_depth",
    "normalize_text",
    "parse_number",
    "strip_punctuation",
    "tokens",
]
