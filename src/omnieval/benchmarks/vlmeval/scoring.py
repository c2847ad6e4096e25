"""VLMEvalKit's ``exact_matching`` policy as a parser and a metric.

The parser reads the chosen letter with :func:`~omnieval.benchmarks.vlmeval.matching.infer_choice`; a
response matching no option (VLMEvalKit's ``Z``) is a parse failure and scores 0, as the hit is then
``'Z' == answer``. CircularEval uses the engine's ``group_all`` aggregation over the question's rotations.
"""

from __future__ import annotations

import string

from omnieval.benchmarks.vlmeval.matching import infer_choice
from omnieval.metrics.base import register_metric
from omnieval.parsers.base import register_parser
from omnieval.types import Parsed, ParseFailure, ParseOutcome, Sample, ScoringInput

__all__ = ["mcq_hit", "mcq_rule", "options_of"]


def options_of(choices: tuple[str, ...] | None) -> dict[str, str]:
    """``{"A": first option, ...}`` in presentation order."""
    return dict(zip(string.ascii_uppercase, choices or (), strict=False))


@register_parser("vlmeval.mcq_rule")
def mcq_rule(text: str, sample: Sample, /) -> ParseOutcome:
    """The option letter VLMEvalKit's rule matching finds; ``Z`` (a refusal) and no match fail."""
    letter = infer_choice(text, options_of(sample.choices))
    if letter is None:
        return ParseFailure(reason="no option letter or option text matched (VLMEvalKit's Z)")
    if letter == "Z":
        return Parsed(value="Z", how="refusal")
    return Parsed(value=letter, how="rule")


@register_metric("vlmeval.mcq_hit")
def mcq_hit(inp: ScoringInput) -> float:
    """1 when the matched letter is the gold letter (VLMEvalKit's ``hit``)."""
    return float(inp.parsed and bool(inp.targets) and str(inp.prediction) == str(inp.targets[0]))
