"""POLLUX judge prompts (App. M.1): the Russian training template and the English Prometheus-style
template, one criterion per call, plus the critical-criterion gate.

Missing reference answer (unspecified in the paper): a criterion variant that requires a reference is
not judged without one (``NoReference``, counted by the caller); otherwise ``missing_reference``
decides: ``"omit"`` drops the reference section (the judges "accept reference-free format"),
``"placeholder"`` keeps it with a fixed "no reference" line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from omnieval.benchmarks.pollux.taxonomy import CriterionVariant

__all__ = ["NoReference", "build_judge_prompt", "critical_gate"]

RU_SECTIONS = ("### Задание для оценки:", "### Эталонный ответ:", "### Ответ для оценки:",
               "### Критерий оценки:", "### Шкала оценивания по критерию:")  # fmt: skip
EN_HEADER = """### Task Description:
You are provided with the following: an instruction (which may include an input), a response to evaluate, a reference answer and an evaluation criterion with a detailed scale.
1. Write detailed feedback assessing the quality of the response strictly according to the provided evaluation scale. Do not give a general evaluation, base your assessment entirely on the scale.
2. Assign a score to the response by referring to the scale. The score must correspond to a single scale point and its description.
3. Format your output as follows: "[FEEDBACK] (Write detailed feedback regarding the evaluated response and the assigned score, reason step by step and explain each point.) [RESULT] (An integer score within the boundaries of the criterion scale.)"
4. Do not include any additional openings, closings, or explanations.
5. Write feedback in Russian.
6. Write [END] after you are done."""
EN_SECTIONS = ("### The instruction to evaluate:", "### Reference answer:", "### Response to evaluate:",
               "### Score name", "### Score Rubrics:")  # fmt: skip
PLACEHOLDER = {"ru": "Эталонный ответ отсутствует.", "en": "No reference answer is available."}
TEMPLATE_VERSION = "pollux-judge-prompt-1"


class NoReference(ValueError):
    """The criterion variant compares with a reference answer and the item has none."""


def build_judge_prompt(
    *,
    instruction: str,
    answer: str,
    criterion: CriterionVariant,
    reference: str | None = None,
    template: Literal["ru", "en"] = "ru",
    missing_reference: Literal["omit", "placeholder"] = "omit",
    with_description: bool = True,
) -> str:
    """One judge prompt for one criterion; slots as App. M.1 names them."""
    if not (reference or "").strip():
        if criterion.requires_reference:
            raise NoReference(f"criterion {criterion.id} requires a reference answer")
        reference = None if missing_reference == "omit" else PLACEHOLDER[template]
    rubrics = criterion.rubric_text()
    if with_description and criterion.description:
        rubrics = f"{criterion.description}\n{rubrics}"
    name = criterion.name_ru if template == "ru" and criterion.name_ru else criterion.name
    heads = RU_SECTIONS if template == "ru" else EN_SECTIONS
    bodies = (instruction, reference, answer, name, rubrics)
    parts = [f"{head}\n{body}" for head, body in zip(heads, bodies, strict=True) if body is not None]
    text = "\n\n".join(parts)
    return f"{EN_HEADER}\n\n{text}" if template == "en" else text


def critical_gate(
    variants: Sequence[CriterionVariant], critical_scores: Mapping[str, float | None]
) -> tuple[list[CriterionVariant], list[CriterionVariant]]:
    """Split an answer's criteria into (to judge, gated): once any Critical criterion is judged a
    violation (1), the other criteria are not judged; their triples are counted as gated, as the
    paper drops answers with a critical violation before aggregation."""
    violated = any(critical_scores.get(v.id) == 1 for v in variants if v.group == "critical")
    rest = [v for v in variants if v.group != "critical"]
    return ([], rest) if violated else (rest, [])
