"""MARKER open-ended physics: an LLM judge grades a free-form Russian solution on the article's 1-5 rubric.

The article prints only the five levels (marker.md §4.3); its full judge instruction is lost, so the
instruction text here is ours, in Russian, built around those levels word for word in meaning:
1 incoherent text; 2 basic command of Russian; 3 excellent Russian, basic terminology; 4 excellent
Russian and terminology, with inaccuracies; 5 the same without inaccuracies. As printed, the rubric
grades language and terminology, with "inaccuracies" as its only correctness hook; ``correctness=True``
adds an explicit instruction to count a wrong final answer or wrong reasoning as an inaccuracy (not the
article's protocol: reported separately). The judge answers ``Оценка: N``; the article reports the mean
N (1-5) per model.
"""

from __future__ import annotations

from omnieval.judges import register_judge_template
from omnieval.parsers import register_parser
from omnieval.parsers.library.scores import read_scale_score
from omnieval.types import GenerationConfig, JudgeSpec, ParseOutcome, PluginRef, Sample

__all__ = ["RUBRIC", "RUBRIC_SCALE", "TEMPLATE", "TEMPLATE_CORRECTNESS", "judge_spec", "rubric_score"]

RUBRIC_SCALE = (1, 5)
RUBRIC = (
    (1, "бессвязный текст"),
    (2, "базовое владение русским языком"),
    (3, "отличный русский язык, базовое владение терминологией"),
    (4, "отличный русский язык и терминология, но есть неточности"),
    (5, "отличный русский язык и терминология, неточностей нет"),
)
"""The article's five levels (marker.md §4.3), in Russian."""
_CORRECTNESS = (
    "Неверный итоговый ответ или ошибка в рассуждении считаются неточностью: такое решение "
    "не может получить больше 4 баллов."
)


def _instruction(*, correctness: bool) -> str:
    levels = "\n".join(f"{score} — {text}" for score, text in RUBRIC)
    extra = f"\n{_CORRECTNESS}" if correctness else ""
    return (
        "Вы оцениваете решение задачи по физике, написанное моделью. Модель должна была дать ответ "
        "и всё необходимое обоснование на грамотном русском языке.\n"
        f"Поставьте одну оценку по шкале:\n{levels}{extra}\n"
        "Ответьте строго в формате:\nОценка: <целое число от 1 до 5>\nПояснение: <кратко, почему>"
    )


_USER = (
    "Задача:\n{{ question | trim }}\n\n"
    "{% if gold %}Эталонное решение:\n{{ gold | trim }}\n\n{% endif %}"
    "Решение модели:\n{{ answer | trim }}"
)
TEMPLATE = register_judge_template(
    "marker_physics_rubric",
    version="1",
    system=_instruction(correctness=False),
    user=_USER,
    description="MARKER open-ended physics: the article's 1-5 rubric (language and terminology)",
)
TEMPLATE_CORRECTNESS = register_judge_template(
    "marker_physics_rubric_correctness",
    version="1",
    system=_instruction(correctness=True),
    user=_USER,
    description="MARKER 1-5 rubric plus an explicit correctness criterion (not the article's protocol)",
)


def judge_spec(*, correctness: bool = False) -> JudgeSpec:
    """The judge of an open-ended physics task: ``direct`` protocol (problem, reference, answer), the
    rubric template, verdict 1-5, sample value verdict / 5 (the article's mean score = 5 × mean value)."""
    template = TEMPLATE_CORRECTNESS if correctness else TEMPLATE
    return JudgeSpec(
        key="rubric",
        template=template.ref,
        parser=PluginRef(name="marker.rubric_score"),
        scale=(float(RUBRIC_SCALE[0]), float(RUBRIC_SCALE[1])),
        generation=GenerationConfig(temperature=0.0, max_tokens=512),
    )


@register_parser("marker.rubric_score")
def rubric_score(text: str, sample: Sample, /) -> ParseOutcome:
    """MARKER physics judge: the integer 1-5 after ``Оценка:`` (``Score:``/``Балл:`` and tags accepted)."""
    return read_scale_score(
        text,
        low=RUBRIC_SCALE[0],
        high=RUBRIC_SCALE[1],
        labels=("оценка", "score", "балл", "баллы"),
        tags=("оценка", "score"),
        what="score",
    )
