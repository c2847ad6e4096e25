"""The multiple-choice prompt of VLMEvalKit's ``ImageMCQDataset.build_prompt`` (image first, then text)."""

from __future__ import annotations

from collections.abc import Mapping

from omnieval.sources.hub import reworded
from omnieval.types import PromptVariant

__all__ = ["mcq_prompt", "mcq_variants"]

INSTRUCTION = {
    "en": "Please select the correct answer from the options above. \n",
    "ru": "Пожалуйста, выберите правильный ответ из предложенных вариантов. \n",
}
REWORDED = {
    "en": {
        "letter": "Answer with the letter of the correct option only.\n",
        "which": "Which option is correct? Reply with its letter.\n",
    },
    "ru": {
        "letter": "Ответьте только буквой правильного варианта.\n",
        "which": "Какой вариант верный? Напишите его букву.\n",
    },
}
"""Our alternative wordings of the instruction (prompt variants ``letter``, ``which``; not VLMEvalKit's)."""
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


def mcq_variants(lang: str) -> tuple[PromptVariant, ...]:
    """The prompt with the instruction reworded (``?prompts=`` variants); question and options unchanged."""
    return tuple(reworded(name, (INSTRUCTION[lang], text)) for name, text in REWORDED[lang].items())
