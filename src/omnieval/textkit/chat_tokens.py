"""Chat-template special tokens in an answer: the sign that a server wrapped the prompt in a template the
model was not trained with (llama.cpp falls back to ChatML for a GGUF without one), so the model writes
the template's markers instead of an answer, and every such sample scores 0 without an error."""

from __future__ import annotations

import re

__all__ = ["TEMPLATE_TOKENS", "template_token"]

TEMPLATE_TOKENS = (
    "<|im_end|>",
    "<|im_start|>",
    "<|endoftext|>",
    "<end_of_turn>",
    "<start_of_turn>",
    "<|eot_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|begin_of_text|>",
    "<|end|>",
    "<|user|>",
    "<|assistant|>",
    "<|system|>",
    "[INST]",
    "[/INST]",
    "</s>",
    "<eos>",
    "<bos>",
)
"""ChatML (Qwen, llama.cpp's fallback), Gemma, Llama 3, Phi, Mistral and SentencePiece markers."""
_FOUND = re.compile("|".join(re.escape(t) for t in TEMPLATE_TOKENS))


def template_token(text: str | None) -> str | None:
    """The first chat-template token in ``text``; ``None`` when it holds none."""
    if not text or ("<" not in text and "[" not in text):
        return None
    match = _FOUND.search(text)
    return match.group() if match else None
