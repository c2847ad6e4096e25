"""VLMEvalKit's ``exact_matching`` policy as a parser and a metric.

The parser reads the chosen letter with :func:`~omnieval.benchmarks.vlmeval.matching.infer_choice`; a
response matching no option (VLMEvalKit's ``Z``) is a parse failure and scores 0, as the hit is then
``'Z' == answer``. ``vlmeval.circular`` aggregates CircularEval groups.
"""

from __future__ import annotations

import string
from collections.abc import Hashable, Sequence

from omnieval.benchmarks.vlmeval.matching import infer_choice
from omnieval.metrics.base import register_aggregation, register_metric
from omnieval.parsers.base import register_parser
from omnieval.types import Parsed, ParseFailure, ParseOutcome, Sample, SampleResult, ScoringInput

__all__ = ["circular", "circular_groups", "mcq_hit", "mcq_rule", "mcq_rule_strict", "options_of"]

_ONE = 1.0 - 1e-9


def options_of(choices: tuple[str, ...] | None) -> dict[str, str]:
    """``{"A": first option, ...}`` in presentation order."""
    return dict(zip(string.ascii_uppercase, choices or (), strict=False))


def _rule(text: str, sample: Sample, *, strict: bool) -> ParseOutcome:
    letter = infer_choice(text, options_of(sample.choices), strict=strict)
    if letter is None:
        return ParseFailure(reason="no option letter or option text matched (VLMEvalKit's Z)")
    if letter == "Z":
        return Parsed(value="Z", how="refusal")
    return Parsed(value=letter, how="rule")


@register_parser("vlmeval.mcq_rule")
def mcq_rule(text: str, sample: Sample, /) -> ParseOutcome:
    """The option letter VLMEvalKit's rule matching finds; ``Z`` is a refusal, no match a parse failure."""
    return _rule(text, sample, strict=False)


@register_parser("vlmeval.mcq_rule_strict")
def mcq_rule_strict(text: str, sample: Sample, /) -> ParseOutcome:
    """VLMEvalKit's rule matching, with ``answer is X`` read only for a capital letter standing alone."""
    return _rule(text, sample, strict=True)


@register_metric("vlmeval.mcq_hit")
def mcq_hit(inp: ScoringInput) -> float:
    """1 when the matched letter is the gold letter (VLMEvalKit's ``hit``)."""
    return float(inp.parsed and bool(inp.targets) and str(inp.prediction) == str(inp.targets[0]))


def circular_groups(
    values: Sequence[float], results: Sequence[SampleResult], /
) -> tuple[dict[Hashable, bool], set[Hashable]]:
    """Each CircularEval group's verdict (every rotation right) and the groups whose original row
    (``circular_main``) is present: VLMEvalKit scores only those."""
    verdicts: dict[Hashable, bool] = {}
    main: set[Hashable] = set()
    for value, result in zip(values, results, strict=True):
        group = result.metadata.get("circular_group", result.sample_id)
        verdicts[group] = verdicts.get(group, True) and value >= _ONE
        if result.metadata.get("circular_main", True):
            main.add(group)
    return verdicts, main


def _circular_counts(values: Sequence[float], results: Sequence[SampleResult], /) -> tuple[int, int]:
    verdicts, main = circular_groups(values, results)
    return len(main), len(verdicts) - len(main)


@register_aggregation("vlmeval.circular", groups=_circular_counts)
def circular(values: Sequence[float], results: Sequence[SampleResult], /) -> float:
    """CircularEval: the share of questions (groups of rotations, original row present) whose every
    rotation was answered right (VLMEvalKit's ``mcq_circular_eval`` under ``exact_matching``)."""
    verdicts, main = circular_groups(values, results)
    scored = [verdicts[g] for g in main]
    return sum(scored) / len(scored) if scored else 0.0
