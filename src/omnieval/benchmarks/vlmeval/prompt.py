"""The multiple-choice prompt of VLMEvalKit's ``ImageMCQDataset.build_prompt`` (image first, then text)."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["mcq_prompt"]

INSTRUCTION = {
    "en": "Please select the correct answer from the options above. \n",
    "ru": "Пожалуйста, выберите правильный ответ из предложенных вариантов. \n",
}
LABELS = {
    "en": ("Hint", "Question", "Options"),
    "ru": ("Подсказка", "Вопрос", "Варианты"),
}


def mcq_prompt(
    question: str, options: Mapping[str, str], *, hint: str | None = None, lang: str = "en"
) -> str:
    """``Hint: …`` (when there is one), ``Question: …``, the lettered options and the instruction."""
    hint_label, question_label, options_label = LABELS[lang]
    text = f"{hint_label}: {hint}\n" if hint else ""
    text += f"{question_label}: {question}\n"
    if options:
        text += f"{options_label}:\n" + "".join(f"{letter}. {option}\n" for letter, option in options.items())
        text += INSTRUCTION[lang]
    return text
