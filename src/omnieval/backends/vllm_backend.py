"""``vllm/PATH``: vLLM's offline engine (``vllm.LLM``) with multimodal inputs.

vLLM is optional (``pip install omnieval[vllm]``, needs a GPU); it is imported only when the
engine starts. Prompts are built exactly as for ``hf`` (:func:`build_vllm_input`): the chat
template renders the text, the media stage prepares images, audio and video frames, and they go
in ``multi_modal_data``. Options in ``options.extra``: ``engine_args`` (dict passed to ``vllm.LLM``),
``chat_template`` (jinja override). Log-likelihood requests are not supported here (use ``hf``).
As for ``hf/``, PATH must exist locally (a mistyped path is an error, never a Hub id);
``vllm/hub:ORG/NAME`` loads from the Hub, refused under ``HF_HUB_OFFLINE``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import Field

from omnieval.backends._tool_text import parse_tool_calls, template_takes_tools
from omnieval.backends.base import BackendOptions, InProcessBackend, optional_sampling, register_backend
from omnieval.backends.hf.loading import resolve_source
from omnieval.backends.hf.media import prepare_media
from omnieval.backends.hf.prompting import build_prompt, chat_template_of, template_reasoning_mapping
from omnieval.errors import BackendError
from omnieval.types import GenerationConfig, Request, Response, Usage
from omnieval.types._base import Frozen

__all__ = ["VLLMBackend", "VLLMOptions", "build_vllm_input", "sampling_kwargs"]


class VLLMOptions(Frozen):
    """``--backend-opt`` keys of the vllm backend."""

    engine_args: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments for vllm.LLM (e.g. {"max_model_len": 8192})."""
    chat_template: str | None = None
    """A jinja chat template overriding the model's own."""


def build_vllm_input(
    request: Request,
    *,
    tokenizer: Any,
    processor: Any = None,
    media_cache_dir: str | None = None,
    chat_template: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(vLLM prompt dict ``{"prompt", "multi_modal_data"}``, media applied record) for one request."""
    import numpy as np

    fe = getattr(processor, "feature_extractor", None)
    media = prepare_media(request, cache_dir=media_cache_dir, sample_rate=getattr(fe, "sampling_rate", None))
    built = build_prompt(request, processor=processor, tokenizer=tokenizer, override=chat_template)
    data: dict[str, Any] = {}
    if media.images:
        data["image"] = media.images[0] if len(media.images) == 1 else list(media.images)
    if media.audios:
        clips = [(a, media.sample_rate) for a in media.audios]
        data["audio"] = clips[0] if len(clips) == 1 else clips
    if media.videos:
        arrays = [np.stack([np.asarray(f) for f in frames]) for frames in media.videos]
        data["video"] = arrays[0] if len(arrays) == 1 else arrays
    prompt: dict[str, Any] = {"prompt": built.text}
    if data:
        prompt["multi_modal_data"] = data
    return prompt, media.applied


def sampling_kwargs(gen: GenerationConfig) -> dict[str, Any]:
    """``vllm.SamplingParams`` keyword arguments for a GenerationConfig (greedy at temperature 0)."""
    return {"temperature": gen.temperature, "max_tokens": gen.max_tokens, **optional_sampling(gen)}


@register_backend("vllm")
class VLLMBackend(InProcessBackend):
    """Batched offline generation with vLLM; ``llm`` / ``params_factory`` may be injected (tests)."""

    modalities: ClassVar[frozenset[str]] = frozenset({"text", "image", "audio", "video"})
    extra_options = VLLMOptions

    def reasoning_mapping(self, reasoning: Any) -> dict[str, Any]:
        return template_reasoning_mapping(reasoning)

    def __init__(
        self,
        model: str,
        *,
        options: BackendOptions,
        llm: Any = None,
        params_factory: Callable[..., Any] | None = None,
        processor: Any = None,
    ) -> None:
        super().__init__(model, options=options)
        self._path = model if llm is not None else _weights(model, options)
        self._llm = llm
        self._params_factory = params_factory
        self._processor = processor
        self._lock = threading.Lock()

    def engine(self) -> Any:
        """Start ``vllm.LLM`` on first use."""
        with self._lock:
            if self._llm is None:
                try:
                    import vllm
                except ImportError as exc:
                    raise BackendError(
                        "the vllm backend needs `pip install omnieval[vllm]`", retryable=False
                    ) from exc
                args: dict[str, Any] = {
                    "model": self._path,
                    **dict(self.options.extra.get("engine_args", {})),
                }
                if self.options.dtype:
                    args.setdefault("dtype", self.options.dtype)
                self._llm = vllm.LLM(**args)
                self._processor = self._processor or _try_processor(self._path)
            return self._llm

    def passes_tools(self) -> bool:
        """The ``chat_template`` override, else the model's tokenizer template, takes tools."""
        override = self.options.extra.get("chat_template")
        if override is not None:
            return template_takes_tools(override)
        tokenizer = self.engine().get_tokenizer()
        return template_takes_tools(chat_template_of(self._processor, tokenizer))

    def _params(self, gen: GenerationConfig) -> Any:
        if self._params_factory is None:
            from vllm import SamplingParams

            self._params_factory = SamplingParams
        return self._params_factory(**sampling_kwargs(gen))

    def run_batch(self, requests: list[Request]) -> list[Response | BaseException]:
        """Build every request's input, then one ``LLM.generate`` call for the ones that built."""
        try:
            llm = self.engine()
        except BackendError as exc:
            return [exc for _ in requests]
        results: list[Response | BaseException | None] = [None] * len(requests)
        ready: list[tuple[int, dict[str, Any], dict[str, Any]]] = []
        for i, req in enumerate(requests):
            try:
                if req.kind == "loglikelihood":
                    raise BackendError(
                        f"sample {req.sample_id!r}: vllm backend does not score loglikelihood; use hf/",
                        retryable=False,
                    )
                prompt, applied = build_vllm_input(
                    req,
                    tokenizer=llm.get_tokenizer(),
                    processor=self._processor,
                    media_cache_dir=self.options.media_cache_dir,
                    chat_template=self.options.extra.get("chat_template"),
                )
                ready.append((i, prompt, applied))
            except BackendError as exc:
                results[i] = exc
        if ready:
            started = time.perf_counter()
            params = [self._params(requests[i].generation) for i, _, _ in ready]
            try:
                outputs = llm.generate([p for _, p, _ in ready], sampling_params=params, use_tqdm=False)
            except Exception as exc:
                err = BackendError(f"vllm generate failed: {exc}", retryable=False)
                return [r if r is not None else err for r in results]
            elapsed = time.perf_counter() - started
            for (i, _, applied), out in zip(ready, outputs, strict=True):
                results[i] = _response(out, applied=applied, latency=elapsed, tools=bool(requests[i].tools))
        return [r if r is not None else BackendError("internal: no result") for r in results]


def _response(out: Any, *, applied: dict[str, Any], latency: float, tools: bool = False) -> Response:
    first = out.outputs[0]
    text, calls = parse_tool_calls(first.text) if tools else (first.text, ())
    return Response(
        text=text,
        tool_calls=calls,
        finish_reason="length" if first.finish_reason == "length" else "stop",
        usage=Usage(
            prompt_tokens=len(out.prompt_token_ids or ()), completion_tokens=len(first.token_ids or ())
        ),
        latency_s=latency,
        media=applied,
    )


def _weights(model: str, options: BackendOptions) -> str:
    """What vLLM loads: an existing local folder or file, or the hub id of an explicit ``hub:ORG/NAME``."""
    src = resolve_source(model, options=options, provider="vllm")
    return src.path if src.hub or src.gguf_file is None else f"{src.path}/{src.gguf_file}"


def _try_processor(model: str) -> Any:
    """The HF processor, for its chat template and feature-extractor rate; None when absent."""
    try:
        from transformers import AutoProcessor

        proc = AutoProcessor.from_pretrained(model)
    except Exception:
        return None
    return proc if hasattr(proc, "tokenizer") else None
