"""POLLUX judge prompts (App. M.1): the Russian training template and the English Prometheus-style
template, one criterion per call, plus the critical-criterion gate.

Missing reference answer (unspecified in the paper): a criterion variant that requires a reference is
not judged without one (``NoReference``, counted by the caller); otherwise ``missing_reference``
decides: ``"omit"`` drops the reference section (the judges "accept reference-free format"),
``"placeholder"`` keeps it with a fixed "no reference" line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from omnieval.benchmarks.pollux.taxonomy import CriterionVariant

__all__ = ["TEMPLATES", "NoReference", "build_judge_prompt", "critical_gate", "judge_variables", "render"]

EN_HEADER = """### Task Description:
You are provided with the following: an instruction (which may include an input), a response to evaluate, a reference answer and an evaluation criterion with a detailed scale.
1. Write detailed feedback assessing the quality of the response strictly according to the provided evaluation scale. Do not give a general evaluation, base your assessment entirely on the scale.
2. Assign a score to the response by referring to the scale. The score must correspond to a single scale point and its description.
3. Format your output as follows: "[FEEDBACK] (Write detailed feedback regarding the evaluated response and the assigned score, reason step by step and explain each point.) [RESULT] (An integer score within the boundaries of the criterion scale.)"
4. Do not include any additional openings, closings, or explanations.
5. Write feedback in Russian.
6. Write [END] after you are done.

"""
SLOTS = ("instruction", "reference_answer", "answer", "criteria_name", "criteria_rubrics")


def _layout(headings: tuple[str, str, str, str, str], *, header: str = "") -> str:
    """App. M.1's section layout as jinja: one heading per slot; the reference section only when given."""
    parts = []
    for heading, slot in zip(headings, SLOTS, strict=True):
        section = f"{heading}\n{{{{ {slot} }}}}"
        if slot == "reference_answer":
            section = f"{{% if reference_answer is not none %}}\n{section}\n{{% endif %}}"
        parts.append(section)
    text = "\n\n".join(parts).replace("\n\n{% if", "\n{% if").replace("{% endif %}\n\n", "{% endif %}\n")
    return header + text


RU_TEMPLATE = _layout(
    (
        "### Задание для оценки:",
        "### Эталонный ответ:",
        "### Ответ для оценки:",
        "### Критерий оценки:",
        "### Шкала оценивания по критерию:",
    )
)
EN_TEMPLATE = _layout(
    (
        "### The instruction to evaluate:",
        "### Reference answer:",
        "### Response to evaluate:",
        "### Score name",
        "### Score Rubrics:",
    ),
    header=EN_HEADER,
)
TEMPLATES = {"ru": RU_TEMPLATE, "en": EN_TEMPLATE}
PLACEHOLDER = {"ru": "Эталонный ответ отсутствует.", "en": "No reference answer is available."}
TEMPLATE_VERSION = "1"


class NoReference(ValueError):
    """The criterion variant compares with a reference answer and the item has none."""


def judge_variables(
    *,
    instruction: str,
    answer: str,
    criterion: CriterionVariant,
    reference: str | None = None,
    template: Literal["ru", "en"] = "ru",
    missing_reference: Literal["omit", "placeholder"] = "omit",
    with_description: bool = True,
) -> dict[str, str | None]:
    """The template slots as App. M.1 names them (``criteria.name`` → ``criteria_name``)."""
    if not (reference or "").strip():
        if criterion.requires_reference:
            raise NoReference(f"criterion {criterion.id} requires a reference answer")
        reference = None if missing_reference == "omit" else PLACEHOLDER[template]
    rubrics = criterion.rubric_text()
    if with_description and criterion.description:
        rubrics = f"{criterion.description}\n{rubrics}"
    name = criterion.name_ru if template == "ru" and criterion.name_ru else criterion.name
    return {
        "instruction": instruction,
        "reference_answer": reference,
        "answer": answer,
        "criteria_name": name,
        "criteria_rubrics": rubrics,
    }


def render(template: str, variables: dict[str, str | None]) -> str:
    import jinja2

    env = jinja2.Environment(keep_trailing_newline=False, autoescape=False, undefined=jinja2.StrictUndefined)
    return env.from_string(template).render(**variables)


def build_judge_prompt(*, template: Literal["ru", "en"] = "ru", **kwargs: Any) -> str:
    """One judge prompt for one criterion (keyword arguments as :func:`judge_variables`)."""
    return render(TEMPLATES[template], judge_variables(template=template, **kwargs))


def critical_gate(
    variants: Sequence[CriterionVariant], critical_scores: Mapping[str, float | None]
) -> tuple[list[CriterionVariant], list[CriterionVariant]]:
    """Split an answer's criteria into (to judge, gated): once any Critical criterion is judged a
    violation (1), the other criteria are not judged; their triples are counted as gated, as the
    paper drops answers with a critical violation before aggregation."""
    violated = any(critical_scores.get(v.id) == 1 for v in variants if v.group == "critical")
    rest = [v for v in variants if v.group != "critical"]
    return ([], rest) if violated else (rest, [])
