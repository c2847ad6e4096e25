"""ART descriptive protocol: an LLM judge reads (question, expected Yes/No, free-form answer) and writes
two lines, ``Relevant`` or ``Irrelevant``, then ``Correct`` / ``Incorrect`` (when relevant) or an
explanation (when irrelevant) (art_audio.md §5.5).

The system prompt is the paper's Listing 1, kept word for word because the verdicts depend on it
(benchmark parity). The user message follows the listing's examples (template ``art_descriptive@1``,
protocol ``art_descriptive``: the question text from the sample, the expected Yes/No, the model's
answer). :func:`read_art_verdict` is the one grammar; two registered parsers expose it to the judge
stage: ``art.judge_verdict`` (1 when relevant and correct: the judge value is the paper's absolute
accuracy) and ``art.judge_relevance`` (1 when relevant). :func:`descriptive_summary` reads the stored
raw judge outputs of a run back into % relevant, absolute and relative accuracy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from omnieval.judges import CallSpec, JudgeInput, JudgePlan, register_judge_protocol, register_judge_template
from omnieval.parsers import register_parser
from omnieval.parsers.library.scores import drop_reasoning
from omnieval.types import GenerationConfig, JudgeSpec, Parsed, ParseFailure, ParseOutcome, PluginRef, Sample

__all__ = [
    "SYSTEM_PROMPT",
    "TEMPLATE",
    "ArtVerdict",
    "art_descriptive",
    "descriptive_summary",
    "judge_relevance",
    "judge_spec",
    "judge_verdict",
    "read_art_verdict",
]

SYSTEM_PROMPT = """You will receive a question, an expected answer (which can always be reduced to "Yes" or "No"), and an actual answer that was given. Your task is to check whether the given answer is relevant to the question. If it is relevant, respond with "Relevant" on the first line, followed by another line stating whether the given answer is correct or incorrect compared to the expected answer. If it is irrelevant, respond with "Irrelevant" on the first line, followed by an explanation on the next line.

Example Input:
Question: Are there as many dog barks as there are bell rings?
Expected Answer: No
Given Answer: There are more dog barks than bell rings.

Example Output:
Relevant
Incorrect

Example Input:
Question: Is one of the recordings a quieter version of the other one?
Expected Answer: Yes
Given Answer: Yes, the second recording is a shortened version of the first one.

Example Output:
Irrelevant
The answer does not address the question about the quieter audio."""
"""ART's judge system prompt (paper Listing 1, verbatim)."""


@dataclass(frozen=True)
class ArtVerdict:
    """A judge's decision on one answer."""

    relevant: bool
    correct: bool
    """Always False for an irrelevant answer."""
    explanation: str = ""


TEMPLATE = register_judge_template(
    "art_descriptive",
    version="1",
    system=SYSTEM_PROMPT,
    user="Question: {{ question | trim }}\nExpected Answer: {{ expected | trim }}\nGiven Answer: {{ answer | "
    "trim }}",
    description="ART descriptive protocol (paper Listing 1): Relevant/Irrelevant, then Correct/Incorrect",
)


@register_judge_protocol("art_descriptive")
def art_descriptive(inp: JudgeInput, /, *, question_field: str = "question") -> JudgePlan:
    """One call: the spoken question's text (``question_field`` of the sample's metadata, where the
    ``art:DIR`` importer keeps it, or of its fields; else its input), the expected Yes/No (the gold)
    and the model's free-form answer."""
    sample = inp.sample
    question = str(sample.metadata.get(question_field) or sample.fields.get(question_field) or sample.input)
    expected = inp.targets[0] if inp.targets else ""
    return JudgePlan(
        (CallSpec("answer", {"question": question, "expected": expected, "answer": inp.answer}),)
    )


_DECORATION = re.compile(r"^[\s>*_`#\-•]+|[\s*_`]+$")
_HEADER = re.compile(r"^(?:example\s+)?output\s*:?\s*$", re.IGNORECASE)
_FIRST_WORD = re.compile(r"^([a-z]+)\b\W*(.*)$", re.IGNORECASE | re.DOTALL)
_RELEVANCE = {"relevant": True, "irrelevant": False}
_CORRECTNESS = {"correct": True, "incorrect": False}


def _lines(text: str) -> list[str]:
    lines = [_DECORATION.sub("", line) for line in text.splitlines()]
    lines = [line for line in lines if line]
    while lines and _HEADER.match(lines[0]):  # "Output:" echoed from the examples
        lines.pop(0)
    return lines


def _first_word(line: str) -> tuple[str, str]:
    m = _FIRST_WORD.match(line)
    return (m.group(1).lower(), m.group(2).strip()) if m else ("", line)


def read_art_verdict(text: str) -> ArtVerdict | ParseFailure:
    """Line 1 Relevant/Irrelevant; if relevant, line 2 Correct/Incorrect. Anything else fails, saying why."""
    answer = drop_reasoning(text or "")
    if answer is None:
        return ParseFailure(reason="the judge's reasoning was cut off before a verdict")
    lines = _lines(answer)
    if not lines:
        return ParseFailure(
            reason="empty judge output: expected 'Relevant' or 'Irrelevant' on the first line"
        )
    word, rest = _first_word(lines[0])
    if word not in _RELEVANCE:
        return ParseFailure(
            reason=f"first line must start with Relevant or Irrelevant, got {lines[0][:80]!r}"
        )
    if not _RELEVANCE[word]:
        return ArtVerdict(relevant=False, correct=False, explanation=" ".join([rest, *lines[1:]]).strip())
    if rest:
        return ParseFailure(reason=f"first line must be only 'Relevant', got {lines[0][:80]!r}")
    if len(lines) < 2:
        return ParseFailure(reason="'Relevant' without a second line saying Correct or Incorrect")
    word2, rest2 = _first_word(lines[1])
    if word2 not in _CORRECTNESS:
        return ParseFailure(reason=f"second line must start with Correct or Incorrect, got {lines[1][:80]!r}")
    later = [w for w, _ in map(_first_word, lines[2:]) if w in _CORRECTNESS or w in _RELEVANCE]
    if later:
        return ParseFailure(reason=f"more than one verdict line: {lines[1][:40]!r} and a later {later[0]!r}")
    return ArtVerdict(
        relevant=True, correct=_CORRECTNESS[word2], explanation=" ".join([rest2, *lines[2:]]).strip()
    )


def judge_spec(*, question_field: str = "question") -> JudgeSpec:
    """The judge of a descriptive ART task: verdict 1 (relevant and correct) or 0.

    Decoding follows the paper's judge settings for Llama 3.3 (Table 7: temperature 0.6, top-p 0.9);
    ``--judge-temperature 0`` makes it deterministic (and cacheable) at the cost of parity.
    """
    return JudgeSpec(
        key="art_correct",
        protocol=PluginRef(name="art_descriptive", options={"question_field": question_field}),
        template=TEMPLATE.ref,
        parser=PluginRef(name="art.judge_verdict"),
        scale=(0.0, 1.0),
        generation=GenerationConfig(temperature=0.6, top_p=0.9, max_tokens=128),
    )


def _as_parsed(text: str, *, relevance: bool) -> ParseOutcome:
    verdict = read_art_verdict(text)
    if isinstance(verdict, ParseFailure):
        return verdict
    if relevance:
        return Parsed(value=int(verdict.relevant), how="correct" if verdict.correct else "incorrect")
    return Parsed(value=int(verdict.correct), how="relevant" if verdict.relevant else "irrelevant")


@register_parser("art.judge_verdict")
def judge_verdict(text: str, sample: Sample, /) -> ParseOutcome:
    """ART judge: 1 when the answer is relevant and correct, else 0 (``how`` says relevant/irrelevant)."""
    return _as_parsed(text, relevance=False)


@register_parser("art.judge_relevance")
def judge_relevance(text: str, sample: Sample, /) -> ParseOutcome:
    """ART judge: 1 when the answer is relevant to the question, else 0."""
    return _as_parsed(text, relevance=True)


def descriptive_summary(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """% relevant, absolute accuracy (correct / all) and relative accuracy (correct / relevant) from the
    raw judge outputs stored in a run's records; samples whose judge failed are counted apart."""
    relevant = correct = judged = failed = 0
    for record in records:
        judge = record.get("judge") or {}
        if not judge:
            continue
        if judge.get("value") is None:
            failed += 1
            continue
        attempts = [a for call in judge.get("calls") or () for a in call.get("attempts") or ()]
        verdict = read_art_verdict(str(attempts[-1].get("raw") or "")) if attempts else None
        if not isinstance(verdict, ArtVerdict):
            failed += 1
            continue
        judged += 1
        relevant += verdict.relevant
        correct += verdict.correct
    return {
        "judged": judged,
        "judge_failed": failed,
        "relevant": relevant / judged if judged else None,
        "absolute_accuracy": correct / judged if judged else None,
        "relative_accuracy": correct / relevant if relevant else None,
    }
