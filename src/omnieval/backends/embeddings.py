"""Text embedders from a model spec: ``hf/PATH`` (a local encoder, mean-pooled) or ``openai/NAME`` (``/embeddings``).

Membership inference, distractor mining and duplicate filters all need "any configured embedder";
this is the one place that turns a spec into ``texts -> (n, d) float array``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from omnieval.errors import BackendError, ConfigError

__all__ = ["Embedder", "create_embedder"]

Embedder = Callable[[Sequence[str]], np.ndarray]


def _hf_embedder(path: str, *, batch_size: int, device: str) -> Embedder:
    if not Path(path).exists():
        raise ConfigError(f"hf/{path}: no such local model folder or file")
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    if tokenizer.pad_token is None:  # decoder-only embedders (gte-Qwen2, e5-mistral) ship without one
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModel.from_pretrained(path, local_files_only=True).to(device).eval()

    def embed(texts: Sequence[str]) -> np.ndarray:
        out = []
        for start in range(0, len(texts), batch_size):
            enc = tokenizer(list(texts[start : start + batch_size]), return_tensors="pt", padding=True, truncation=True).to(device)
            with torch.inference_mode():
                hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
            out.append(torch.nn.functional.normalize(pooled.float(), dim=-1).cpu().numpy())
        return np.vstack(out) if out else np.zeros((0, 0), np.float32)

    return embed


def _openai_embedder(name: str, *, base_url: str, api_key: str | None, timeout_s: float, batch_size: int) -> Embedder:
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    url = base_url.rstrip("/") + "/embeddings"

    def embed(texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        with httpx.Client(timeout=timeout_s, headers=headers) as client:
            for start in range(0, len(texts), batch_size):
                response = client.post(url, json={"model": name, "input": list(texts[start : start + batch_size])})
                if response.status_code != 200:
                    raise BackendError(f"{url}: HTTP {response.status_code}: {response.text[:300]}", retryable=False)
                data = sorted(response.json()["data"], key=lambda d: d["index"])
                rows.extend(d["embedding"] for d in data)
        return np.asarray(rows, dtype=np.float32)

    return embed


def create_embedder(
    spec: str, *, base_url: str | None = None, api_key: str | None = None, batch_size: int = 16,
    device: str = "cpu", timeout_s: float = 120.0,
) -> Embedder:
    """An embedder for ``hf/PATH`` or ``openai/NAME`` (the latter needs ``base_url``)."""
    provider, _, name = spec.partition("/")
    if provider == "hf" and name:
        return _hf_embedder(name, batch_size=batch_size, device=device)
    if provider == "openai" and name:
        if not base_url:
            raise ConfigError(f"embedder {spec}: an openai/ embedder needs a base URL")
        return _openai_embedder(name, base_url=base_url, api_key=api_key, timeout_s=timeout_s, batch_size=batch_size)
    raise ConfigError(f"unknown embedder spec {spec!r}: use hf/PATH or openai/NAME")
