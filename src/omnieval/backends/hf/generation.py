"""Batched generation with left padding, and turning output ids into Responses."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any

from omnieval.backends._tool_text import parse_tool_calls
from omnieval.backends.hf.loading import Loaded
from omnieval.backends.hf.media import PreparedMedia
from omnieval.types import FinishReason, GenerationConfig, Request, Response, Usage
from omnieval.types.tools import ToolCall

__all__ = ["Item", "encode_batch", "generate_batch"]


@dataclass
class Item:
    """One request ready for the model."""

    request: Request
    text: str
    media: PreparedMedia
    template: str


def _adds_bos(loaded: Loaded, text: str) -> bool:
    """Tokenise with special tokens unless the rendered text already starts with BOS."""
    bos = getattr(loaded.tokenizer, "bos_token", None)
    return not (bos and text.startswith(bos))


def encode_batch(loaded: Loaded, items: list[Item]) -> Any:
    """Tensors for a batch: the processor when media are present, else the tokenizer."""
    texts = [it.text for it in items]
    special = _adds_bos(loaded, texts[0])
    images = [img for it in items for img in it.media.images + [f for v in it.media.videos for f in v]]
    audios = [a for it in items for a in it.media.audios]
    if loaded.processor is None or not (images or audios):
        enc = loaded.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=special)
    else:
        kwargs: dict[str, Any] = {"text": texts, "return_tensors": "pt", "padding": True}
        kwargs["add_special_tokens"] = special
        native_video = "video" in loaded.modalities
        if native_video:
            images = [img for it in items for img in it.media.images]
            videos = [v for it in items for v in it.media.videos]
            if videos:
                kwargs["videos"] = videos
        if images:
            kwargs["images"] = images
        if audios:
            kwargs["audio"] = audios
            kwargs["sampling_rate"] = items[0].media.sample_rate
        enc = loaded.processor(**kwargs)
    return enc.to(loaded.device)


def _generation_config(loaded: Loaded, gen: GenerationConfig) -> Any:
    cfg = copy.deepcopy(loaded.model.generation_config)
    cfg.max_new_tokens = gen.max_tokens
    cfg.pad_token_id = loaded.tokenizer.pad_token_id
    if gen.temperature > 0:
        cfg.do_sample = True
        cfg.temperature = gen.temperature
        cfg.top_p = gen.top_p if gen.top_p is not None else 1.0
        cfg.top_k = 0
    else:
        cfg.do_sample = False
        cfg.temperature = None
        cfg.top_p = None
        cfg.top_k = None
    return cfg


def _end_ids(loaded: Loaded) -> set[int]:
    """Token ids that end a row: EOS ids, and the pad id that fills rows finished early in a batch."""
    ids: set[int] = set()
    ends = (
        loaded.model.generation_config.eos_token_id,
        loaded.tokenizer.eos_token_id,
        loaded.tokenizer.pad_token_id,
    )
    for value in ends:
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, list | tuple):
            ids.update(int(v) for v in value)
    return ids


def _to_response(
    loaded: Loaded, item: Item, row: list[int], *, prompt_tokens: int, eos: set[int]
) -> Response:
    gen = item.request.generation
    cut = next((i for i, t in enumerate(row) if t in eos), None)
    tokens = row if cut is None else row[:cut]
    raw = loaded.tokenizer.decode(tokens, skip_special_tokens=True)
    text = raw
    hits = [raw.find(s) for s in gen.stop if s and s in raw]
    if hits:
        text = raw[: min(hits)]
    hit_length = cut is None and not hits and len(tokens) >= gen.max_tokens
    finish: FinishReason = "length" if hit_length else "stop"
    calls: tuple[ToolCall, ...] = ()
    if item.request.tools:  # calls written in the text the chat template taught
        text, calls = parse_tool_calls(text)
    return Response(
        text=text,
        tool_calls=calls,
        raw_text=raw if raw != text else None,
        finish_reason=finish,
        usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=len(tokens)),
        media=item.media.applied,
        extra={"template": item.template},
    )


def _stop_criteria(tokenizer: Any, stops: tuple[str, ...], *, width: int) -> Any:
    """Stop each row once its new text holds a stop string.

    transformers' own ``stop_strings`` pre-computes a table over the whole vocabulary on every call,
    which costs seconds per batch with Gemma's 262k-token vocabulary; decoding a few new tokens is cheap.
    """
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    class _StopStrings(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            texts = tokenizer.batch_decode(input_ids[:, width:], skip_special_tokens=True)
            hits = [any(s in t for s in stops if s) for t in texts]
            return torch.tensor(hits, dtype=torch.bool, device=input_ids.device)

    return StoppingCriteriaList([_StopStrings()])


def generate_batch(loaded: Loaded, items: list[Item]) -> list[Response]:
    """Generate for requests sharing one GenerationConfig; output order follows ``items``."""
    import torch

    gen = items[0].request.generation
    enc = encode_batch(loaded, items)
    kwargs: dict[str, Any] = {"generation_config": _generation_config(loaded, gen)}
    if gen.stop:
        kwargs["stopping_criteria"] = _stop_criteria(
            loaded.tokenizer, gen.stop, width=enc["input_ids"].shape[1]
        )
    if gen.temperature > 0 and gen.seed is not None:
        torch.manual_seed(gen.seed)
    started = time.perf_counter()
    with torch.inference_mode():
        out = loaded.model.generate(**enc, **kwargs)
    elapsed = time.perf_counter() - started
    width = enc["input_ids"].shape[1]
    prompt_lens = enc["attention_mask"].sum(dim=1).tolist()
    eos = _end_ids(loaded)
    responses = []
    for i, item in enumerate(items):
        resp = _to_response(loaded, item, out[i, width:].tolist(), prompt_tokens=int(prompt_lens[i]), eos=eos)
        extra = {**resp.extra, "batch_size": len(items)}
        responses.append(resp.model_copy(update={"latency_s": elapsed, "extra": extra}))
    return responses
