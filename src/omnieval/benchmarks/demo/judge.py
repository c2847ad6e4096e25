"""The demo's judge prompt: few-shot, completion-like, so that a small base model answers 0 or 1 at all."""

from __future__ import annotations

from omnieval.judges import register_judge_template

__all__ = ["DEMO_JUDGE"]

DEMO_JUDGE = register_judge_template(
    "demo_judge",
    version="1",
    description="Is the model's number the same as the gold number? Few-shot 1/0 for small base models.",
    user=(
        "Сравни ответ с правильным. Напиши 1, если они совпадают, иначе 0.\n"
        "Правильный: 12\nОтвет: 12\nОценка: 1\n"
        "Правильный: 7\nОтвет: 9\nОценка: 0\n"
        "Правильный: {{ gold }}\nОтвет: {{ answer }}\nОценка:"
    ),
)
