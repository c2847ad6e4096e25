"""The built-in ``binary_equivalence`` judge prompt template (an ``omnieval.judge_templates`` entry point)."""

from __future__ import annotations

from omnieval.judges.templates import register_judge_template

__all__ = ["BINARY_EQUIVALENCE"]

BINARY_EQUIVALENCE = register_judge_template(
    "binary_equivalence",
    version="1",
    description="Does the answer agree in substance with the gold answer? 1 or 0 (any language of the "
    "answer).",
    system="Ты строгий и беспристрастный эксперт, проверяющий ответы на задания.",
    user=(
        "Тебе даны задание, правильный ответ и ответ модели.\n"
        "Оцени, совпадает ли ответ модели по смыслу с правильным ответом, не обращая внимания на форму "
        "записи, регистр, пунктуацию и пояснения.\n\n"
        "Задание:\n{{ question }}\n\n"
        "Правильный ответ:\n{{ gold }}\n\n"
        "Ответ модели:\n{{ answer }}\n\n"
        "Напиши только одну цифру: 1, если ответ модели верный, или 0, если неверный."
    ),
)
