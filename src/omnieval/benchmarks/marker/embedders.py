"""Text embedders for distractor mining: a local ``hf/PATH`` encoder or an OpenAI-compatible API.

``hf/PATH`` loads any transformers encoder from a local folder (FRIDA in MARKER; encoder-decoder
checkpoints use their encoder) and pools its last hidden states (``mean`` over real tokens, or the
first token with ``cls``); ``prefix`` is prepended to every text (FRIDA expects e.g. ``"categorize: "``).
``openai/MODEL`` posts to ``{base_url}/embeddings``. Vectors come back L2-normalised, so a dot
product is the cosine similarity.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from omnieval.errors import ConfigError
from omnieval.registry import Registry

__all__ = ["Embedder", "create_embedder", "embedders", "register_embedder"]


class Embedder(Protocol):
    """Turns texts into L2-normalised row vectors (a ``numpy`` array, one row per text)."""

    spec: str

    def embed(self, texts: Sequence[str]) -> Any: ...


embedders: Registry[Callable[..., Embedder]] = Registry("embedder")


def register_embedder(provider: str) -> Callable[[Callable[..., Embedder]], Callable[..., Embedder]]:
    """Register an embedder factory ``(name, **options) -> Embedder`` for ``PROVIDER/NAME``."""
    return embedders.register(provider)


def _normalise(matrix: Any) -> Any:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


class HFEncoder:
    """A local transformers encoder with mean or first-token pooling."""

    def __init__(self, path: str, *, pooling: str = "mean", prefix: str = "", batch_size: int = 32,
                 device: str = "cpu", max_length: int = 128) -> None:
        if pooling not in ("mean", "cls"):
            raise ConfigError(f"embedder hf/{path}: pooling must be mean or cls, not {pooling!r}")
        if not Path(path).expanduser().is_dir():
            raise ConfigError(f"embedder hf/{path}: not a local model folder (nothing is downloaded at run time)")
        from transformers import AutoModel, AutoTokenizer

        self.spec = f"hf/{path}"
        self.pooling, self.prefix, self.batch_size, self.max_length = pooling, prefix, batch_size, max_length
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            model = AutoModel.from_pretrained(path, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"embedder hf/{path}: cannot load a local encoder there ({exc})") from None
        self.model = (model.get_encoder() if model.config.is_encoder_decoder else model).to(device).eval()
        self.device = device

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np
        import torch

        rows = []
        for start in range(0, len(texts), self.batch_size):
            chunk = [self.prefix + t for t in texts[start:start + self.batch_size]]
            batch = self.tokenizer(chunk, padding=True, truncation=True, max_length=self.max_length,
                                   return_tensors="pt").to(self.device)
            with torch.no_grad():
                hidden = self.model(**batch).last_hidden_state
            if self.pooling == "cls":
                pooled = hidden[:, 0]
            else:
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
            rows.append(pooled.float().cpu().numpy())
        return _normalise(np.concatenate(rows)) if rows else np.zeros((0, 0))


class OpenAIEmbedder:
    """``POST {base_url}/embeddings`` (OpenAI and compatible servers), in batches."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 batch_size: int = 64, timeout_s: float = 60.0) -> None:
        self.spec = f"openai/{model}"
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/")
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY")
        self.batch_size, self.timeout_s = batch_size, timeout_s

    def embed(self, texts: Sequence[str]) -> Any:
        import httpx
        import numpy as np

        headers = {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        rows: list[list[float]] = []
        with httpx.Client(timeout=self.timeout_s) as client:
            for start in range(0, len(texts), self.batch_size):
                chunk = list(texts[start:start + self.batch_size])
                reply = client.post(f"{self.base_url}/embeddings", json={"model": self.model, "input": chunk},
                                    headers=headers)
                if reply.status_code != 200:
                    raise ConfigError(f"embedder {self.spec}: HTTP {reply.status_code} from {self.base_url}: "
                                      f"{reply.text[:200]}")
                data = sorted(reply.json().get("data", []), key=lambda d: d.get("index", 0))
                if len(data) != len(chunk):
                    raise ConfigError(f"embedder {self.spec}: {len(data)} vectors for {len(chunk)} texts")
                rows += [d["embedding"] for d in data]
        return _normalise(np.asarray(rows, dtype="float32"))


register_embedder("hf")(HFEncoder)
register_embedder("openai")(OpenAIEmbedder)


def create_embedder(spec: str, **options: Any) -> Embedder:
    """The embedder named ``PROVIDER/NAME`` (``hf/./models/frida``, ``openai/text-embedding-3-small``)."""
    provider, sep, name = spec.partition("/")
    if not sep or not name:
        raise ConfigError(f"embedder must look like PROVIDER/NAME (hf/PATH or openai/MODEL), got {spec!r}")
    return embedders.get(provider)(name, **options)
