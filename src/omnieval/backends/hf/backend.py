"""``hf/PATH``: local transformers models (text, image, audio and video language models, GGUF).

Requests arrive in lists of ``options.batch_size`` (``prefers_batches``); work runs in a worker
thread so the event loop stays free, one batch at a time since the model is shared.
``hf/PATH`` must exist locally (a mistyped path is an error, never a Hub lookup); ``hf/hub:ORG/NAME`` fetches
from the Hugging Face Hub, refused when ``HF_HUB_OFFLINE`` is set.
Backend-specific options (``options.extra``): ``gguf_file``, ``gguf_cache`` (default True),
``gguf_cache_dir``, ``model_class`` (a transformers class name), ``chat_template`` (jinja override).
"""

from __future__ import annotations

import dataclasses
import gc
import threading
from collections.abc import Sequence
from typing import Any, ClassVar

from omnieval.backends.base import BackendOptions, InProcessBackend, register_backend
from omnieval.backends.hf.generation import Item, encode_batch, generate_batch
from omnieval.backends.hf.loading import Loaded, load_model, resolve_source, wrap_loaded
from omnieval.backends.hf.media import prepare_media
from omnieval.backends.hf.prompting import build_prompt, template_reasoning_mapping
from omnieval.backends.hf.scoring import conditioned_nll, score_choices
from omnieval.errors import BackendError, ConfigError
from omnieval.types import Request, Response
from omnieval.types._base import Frozen

__all__ = ["HFBackend", "HFOptions"]


class HFOptions(Frozen):
    """``--backend-opt`` keys of the hf backend."""

    gguf_file: str | None = None
    """A GGUF file inside the model folder to load (de-quantised once, then cached)."""
    gguf_cache: bool = True
    """Keep the de-quantised GGUF model for later loads."""
    gguf_cache_dir: str | None = None
    """Where to keep it (default ~/.cache/omnieval)."""
    model_class: str | None = None
    """A transformers class name to load with, e.g. AutoModelForImageTextToText."""
    chat_template: str | None = None
    """A jinja chat template overriding the model's own."""


@register_backend("hf")
class HFBackend(InProcessBackend):
    """transformers models run in-process, batched with left padding."""

    modalities: ClassVar[frozenset[str]] = frozenset({"text", "image", "audio", "video"})
    extra_options = HFOptions

    def reasoning_mapping(self, reasoning: Any) -> dict[str, Any]:
        return template_reasoning_mapping(reasoning)

    def __init__(self, model: str, *, options: BackendOptions, loaded: Loaded | None = None) -> None:
        super().__init__(model, options=options)
        if loaded is None:
            resolve_source(model, options=options)  # a mistyped path fails now, not once per batch
        self._loaded: Loaded | None = loaded
        self._lock = threading.Lock()

    @classmethod
    def accepts_for(cls, name: str, *, options: BackendOptions) -> frozenset[str]:
        """A GGUF file is a text model; a local folder takes what its processor handles; a hub model is
        only known once loaded (each sample then says what it lacks)."""
        from omnieval.backends.hf.loading import processor_modalities

        return processor_modalities(resolve_source(name, options=options)) or cls.modalities

    @classmethod
    def from_loaded(cls, model: Any, processor: Any, *, options: BackendOptions | None = None) -> HFBackend:
        """A transformers model and processor (or tokenizer) already in memory, e.g. in a training loop;
        named after ``model.config.name_or_path``."""
        name = str(getattr(getattr(model, "config", None), "name_or_path", "") or type(model).__name__)
        return cls(name, options=options or BackendOptions(), loaded=wrap_loaded(model, processor))

    def loaded(self) -> Loaded:
        """Load the model on first use (in the calling worker thread)."""
        with self._lock:
            if self._loaded is None:
                try:
                    self._loaded = load_model(self.model, options=self.options)
                except ConfigError as exc:
                    raise BackendError(f"hf/{self.model}: {exc}", retryable=False) from exc
            return self._loaded

    def passes_tools(self) -> bool:
        """The model's chat template (or the ``chat_template`` override) takes tools: loads the model,
        which the run would do next anyway."""
        from omnieval.backends._tool_text import template_takes_tools
        from omnieval.backends.hf.prompting import chat_template_of

        override = self.options.extra.get("chat_template")
        if override is not None:
            return template_takes_tools(override)
        loaded = self.loaded()
        return template_takes_tools(chat_template_of(loaded.processor, loaded.tokenizer))

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info.update(
            {
                "device": self.options.device,
                "dtype": self.options.dtype,
                "batch_size": self.options.batch_size,
            }
        )
        if self._loaded is not None:
            info.update(
                {
                    "device": self._loaded.device,
                    "dtype": str(self._loaded.model.dtype),
                    "modalities": sorted(self._loaded.modalities),
                    "loaded_from": self._loaded.source,
                }
            )
        return info

    async def aclose(self) -> None:
        device = self._loaded.device if self._loaded is not None else "cpu"
        self._loaded = None
        gc.collect()
        if device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()

    def run_batch(self, requests: list[Request]) -> list[Response | BaseException]:
        """Answer ``requests`` synchronously; per-request failures come back as exceptions."""
        try:
            loaded = self.loaded()
        except BackendError as exc:
            return [exc for _ in requests]
        with self._lock:
            return self._run_locked(loaded, requests)

    def _run_locked(self, loaded: Loaded, requests: list[Request]) -> list[Response | BaseException]:
        results: list[Response | BaseException | None] = [None] * len(requests)
        groups: dict[str, list[tuple[int, Item]]] = {}
        for i, req in enumerate(requests):
            try:
                item = self._prepare(loaded, req)
                if req.kind == "loglikelihood":
                    results[i] = score_choices(
                        loaded,
                        prompt=item.text,
                        continuations=req.continuations,
                        sample_id=req.sample_id,
                        chunk=self.options.batch_size,
                    )
                    continue
            except BackendError as exc:
                results[i] = exc
                continue
            except Exception as exc:  # a template, tokenizer or scoring failure ends this sample only
                results[i] = BackendError(
                    f"sample {req.sample_id!r}: {type(exc).__name__}: {exc}", retryable=False
                )
                continue
            key = req.generation.model_dump_json() + "|" + ",".join(sorted({m.kind for m in req.media}))
            groups.setdefault(key, []).append((i, item))
        size = max(1, self.options.batch_size)
        for members in groups.values():
            for start in range(0, len(members), size):
                chunk = members[start : start + size]
                for (i, _), res in zip(
                    chunk, self._generate_chunk(loaded, [it for _, it in chunk]), strict=True
                ):
                    results[i] = res
        return [r if r is not None else BackendError("internal: no result") for r in results]

    def text_losses(self, request: Request, texts: Sequence[str]) -> list[float]:
        """Mean per-token loss of each text as the answer to ``request`` (its media included).

        Membership inference compares these losses for a sample's text and its perturbed neighbours.
        """
        loaded = self.loaded()
        with self._lock:
            item = self._prepare(loaded, request)

            def encode(full: str) -> object:
                return encode_batch(loaded, [dataclasses.replace(item, text=full)])

            return [
                conditioned_nll(loaded, prompt=item.text, text=t, encode=encode, sample_id=request.sample_id)
                for t in texts
            ]

    def _generate_chunk(self, loaded: Loaded, items: list[Item]) -> list[Response | BaseException]:
        """Generate a batch; if the batch fails, retry one by one so the error names its sample."""
        try:
            return list(generate_batch(loaded, items))
        except Exception as exc:
            if len(items) == 1:
                req = items[0].request
                return [BackendError(f"sample {req.sample_id!r}: generation failed: {exc}", retryable=False)]
        out: list[Response | BaseException] = []
        for it in items:
            out.extend(self._generate_chunk(loaded, [it]))
        return out

    def _prepare(self, loaded: Loaded, req: Request) -> Item:
        kinds = {m.kind for m in req.media}
        for kind in sorted(kinds):
            accepted = kind in loaded.modalities or (kind == "video" and "image" in loaded.modalities)
            if not accepted:
                raise BackendError(
                    f"sample {req.sample_id!r}: model {self.model} does not accept {kind} input "
                    f"(its processor has no {kind} support; accepts {sorted(loaded.modalities)})",
                    retryable=False,
                )
        if req.kind == "loglikelihood" and kinds:
            raise BackendError(
                f"sample {req.sample_id!r}: loglikelihood scoring takes text only", retryable=False
            )
        fe = getattr(loaded.processor, "feature_extractor", None)
        media = prepare_media(
            req, cache_dir=self.options.media_cache_dir, sample_rate=getattr(fe, "sampling_rate", None)
        )
        frames = None if "video" in loaded.modalities else [len(v) for v in media.videos]
        built = build_prompt(
            req,
            processor=loaded.processor,
            tokenizer=loaded.tokenizer,
            override=self.options.extra.get("chat_template"),
            video_frames=frames,
        )
        return Item(request=req, text=built.text, media=media, template=built.template)
