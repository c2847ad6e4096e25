"""Text embedders, one registry: ``hf/PATH`` (a local transformers encoder) or ``openai/NAME``
(``/embeddings``).

MARKER's distractor mining, POLLUX's duplicate filter and protect's MSMIA embedding gaps all need "any
configured embedder"; this is the one place that turns a spec into an :class:`Embedder`, whose
``embed(texts)`` returns an ``(n, d)`` float array of L2-normalised rows (a dot product is the cosine).

``hf/PATH`` loads an encoder from a local folder (encoder-decoder checkpoints use their encoder; decoder-only
embedders without a pad token pad with EOS) and pools the last hidden states: ``mean`` over real tokens or
the first token with ``cls``; ``prefix`` is prepended to every text (FRIDA expects e.g. ``"categorize: "``).
``openai/NAME`` posts to ``{base_url}/embeddings``; like the ``openai`` backend, ``base_url`` and
``api_key`` default to ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` and then the OpenAI endpoint.
Add a provider with ``@register_embedder("name")`` on a factory ``(name, /, *, **options) -> Embedder``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from omnieval.errors import BackendError, ConfigError, TaskFileError
from omnieval.registry import Registry, check_options

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Embedder", "check_embedder", "create_embedder", "embedders", "register_embedder"]


class Embedder(Protocol):
    """Turns texts into L2-normalised row vectors, one row per text."""

    spec: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


EmbedderFactory = Callable[..., Embedder]
embedders: Registry[EmbedderFactory] = Registry("embedder provider", group="omnieval.embedders")


def register_embedder(provider: str) -> Callable[[EmbedderFactory], EmbedderFactory]:
    """Register an embedder factory ``(name, /, *, **options) -> Embedder`` for specs ``PROVIDER/NAME``."""
    return embedders.register(provider)


def check_embedder(spec: str, options: dict[str, Any] | None = None) -> EmbedderFactory:
    """Validate ``spec`` and ``options`` without loading anything; the factory that will build it."""
    provider, sep, name = spec.partition("/")
    if not sep or not name:
        raise ConfigError(f"embedder must look like PROVIDER/NAME (hf/PATH or openai/MODEL), got {spec!r}")
    factory = embedders.get(provider)
    try:
        check_options(factory, options or {}, what=f"embedder {spec}", n_positional=1)
    except TaskFileError as exc:  # check_options speaks of task files; here it is a command-line option
        raise ConfigError(str(exc)) from None
    return factory


def create_embedder(spec: str, **options: Any) -> Embedder:
    """The embedder named ``PROVIDER/NAME`` (``hf/./models/frida``, ``openai/text-embedding-3-small``)."""
    factory = check_embedder(spec, options)
    return factory(spec.partition("/")[2], **options)


def _normalise(matrix: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _model_limit(tokenizer: Any, config: Any) -> int | None:
    """The longest input the model takes: the tokenizer's limit, else the position table (tiny local
    models)."""
    limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(limit, int) and limit < 1_000_000:
        return limit
    return getattr(config, "max_position_embeddings", None)


@register_embedder("hf")
class HFEncoder:
    """A local transformers encoder with mean or first-token pooling."""

    def __init__(
        self,
        path: str,
        /,
        *,
        pooling: str = "mean",
        prefix: str = "",
        batch_size: int = 16,
        device: str = "cpu",
        max_length: int | None = None,
    ) -> None:
        self.spec = f"hf/{path}"
        if pooling not in ("mean", "cls"):
            raise ConfigError(f"embedder {self.spec}: pooling must be mean or cls, not {pooling!r}")
        if not Path(path).expanduser().is_dir():
            raise ConfigError(
                f"embedder {self.spec}: not a local model folder (nothing is downloaded at run time)"
            )
        from transformers import AutoModel, AutoTokenizer

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            model = AutoModel.from_pretrained(path, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"embedder {self.spec}: cannot load a local encoder there ({exc})") from None
        if (
            self.tokenizer.pad_token is None
        ):  # decoder-only embedders (gte-Qwen2, e5-mistral) ship without one
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = (model.get_encoder() if model.config.is_encoder_decoder else model).to(device).eval()
        self.pooling, self.prefix, self.batch_size = pooling, prefix, batch_size
        self.device, self.max_length = device, max_length or _model_limit(self.tokenizer, model.config)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np
        import torch

        rows = []
        for start in range(0, len(texts), self.batch_size):
            chunk = [self.prefix + t for t in texts[start : start + self.batch_size]]
            batch = self.tokenizer(
                chunk, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
            ).to(self.device)
            with torch.inference_mode():
                hidden = self.model(**batch).last_hidden_state
            if self.pooling == "cls":
                pooled = hidden[:, 0]
            else:
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
            rows.append(pooled.float().cpu().numpy())
        return _normalise(np.concatenate(rows)) if rows else np.zeros((0, 0), np.float32)


@register_embedder("openai")
class OpenAIEmbedder:
    """``POST {base_url}/embeddings`` (OpenAI and compatible servers), in batches, rows in input order."""

    def __init__(
        self,
        model: str,
        /,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout_s: float = 60.0,
    ) -> None:
        from omnieval.backends.openai_compat import DEFAULT_BASE_URL

        self.spec, self.model = f"openai/{model}", model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY")
        self.batch_size, self.timeout_s = batch_size, timeout_s

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import httpx
        import numpy as np

        headers = {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        url, rows = f"{self.base_url}/embeddings", []
        with httpx.Client(timeout=self.timeout_s, headers=headers) as client:
            for start in range(0, len(texts), self.batch_size):
                chunk = list(texts[start : start + self.batch_size])
                reply = client.post(url, json={"model": self.model, "input": chunk})
                if reply.status_code != 200:
                    raise BackendError(
                        f"embedder {self.spec}: HTTP {reply.status_code} from {url}: {reply.text[:200]}",
                        status=reply.status_code,
                        url=url,
                    )
                data = sorted(reply.json().get("data", []), key=lambda d: d.get("index", 0))
                if len(data) != len(chunk):
                    raise BackendError(
                        f"embedder {self.spec}: {len(data)} vectors for {len(chunk)} texts", url=url
                    )
                rows += [d["embedding"] for d in data]
        return _normalise(np.asarray(rows, dtype="float32"))
