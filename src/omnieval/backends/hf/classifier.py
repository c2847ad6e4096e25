"""``hf_classifier/PATH``: a transformers sequence-classification model (an encoder judge), batched.

Answers ``classify`` requests with the argmax label as text and the class probabilities in
``extra["probs"]``. ``--judge hf/PATH`` selects it for a folder whose architecture is
``*ForSequenceClassification``. Options: ``max_length`` (default 8192 tokens, MERA's RuModernBERT context).
As for ``hf/``, PATH must exist locally (a mistyped path is an error, never a Hub lookup) and
``hf_classifier/hub:ORG/NAME`` fetches from the Hub, refused under ``HF_HUB_OFFLINE``.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from omnieval.backends.base import BackendOptions, InProcessBackend, register_backend
from omnieval.backends.hf.loading import resolve_source
from omnieval.errors import BackendError
from omnieval.types import Request, Response
from omnieval.types._base import Frozen

__all__ = ["HFClassifierBackend", "HFClassifierOptions"]


class HFClassifierOptions(Frozen):
    """``--judge-backend-opt`` keys of the hf_classifier backend."""

    max_length: int = 8192
    """Most tokens per input (MERA's RuModernBERT judge reads 8,192)."""


@register_backend("hf_classifier")
class HFClassifierBackend(InProcessBackend):
    """An encoder classifier run in-process; one padded forward pass per batch."""

    classifies: ClassVar[bool] = True
    extra_options = HFClassifierOptions

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        self._path = resolve_source(
            model, options=options, provider="hf_classifier"
        ).path  # fails now, not per batch
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        self.max_length = HFClassifierOptions.model_validate(options.extra).max_length

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None:
                from transformers import AutoModelForSequenceClassification, AutoTokenizer

                try:
                    self._tokenizer = AutoTokenizer.from_pretrained(self._path)
                    model = AutoModelForSequenceClassification.from_pretrained(self._path)
                except (OSError, ValueError) as exc:
                    raise BackendError(
                        f"hf_classifier/{self.model}: cannot load the classifier: {exc}", retryable=False
                    ) from exc
                self._model = model.to(self.options.device or "cpu").eval()
            return self._model, self._tokenizer

    def identity(self) -> str:
        """Digest of the folder's config and weight files (name, size, first MiB): a retrained judge in the
        same folder gets a new judge version."""
        import hashlib
        from pathlib import Path

        folder = Path(self._path)
        if not folder.is_dir():
            return ""
        digest = hashlib.sha256()
        for file in sorted(folder.glob("*")):
            if file.suffix in (".json", ".safetensors", ".bin") and file.is_file():
                digest.update(f"{file.name}:{file.stat().st_size}".encode())
                with file.open("rb") as fh:
                    digest.update(fh.read(1 << 20))
        return digest.hexdigest()[:16]

    def sep_token(self) -> str:
        _, tokenizer = self._load()
        if not tokenizer.sep_token:
            raise BackendError(f"hf_classifier/{self.model}: the tokenizer has no sep_token", retryable=False)
        return str(tokenizer.sep_token)

    def truncations(self, text: str, *, max_tokens: int, offset: int) -> list[str]:
        """MERA's rule: over ``max_tokens - offset`` tokens (special tokens counted), the first and the last
        ``max_tokens - offset`` tokens decoded back to text (special tokens kept, as MERA's ``decode``)."""
        _, tokenizer = self._load()
        tokens = tokenizer.encode(text)
        keep = max_tokens - offset
        if len(tokens) <= keep:
            return [text]
        return [tokenizer.decode(tokens[:keep]), tokenizer.decode(tokens[-keep:])]

    def run_batch(self, requests: list[Request]) -> list[Response | BaseException]:
        try:
            model, tokenizer = self._load()
        except BackendError as exc:
            return [exc for _ in requests]
        bad = [r for r in requests if r.kind != "classify" or r.prompt is None]
        if bad:
            return [
                BackendError(
                    f"hf_classifier answers only classify requests (got {r.kind!r})", retryable=False
                )
                if r in bad
                else BackendError("batch rejected", retryable=False)
                for r in requests
            ]
        import torch

        with self._lock, torch.inference_mode():
            enc = tokenizer(
                [r.prompt for r in requests],
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            ).to(model.device)
            probs = torch.softmax(model(**enc).logits.float(), dim=-1).cpu().tolist()
        return [Response(text=str(max(range(len(p)), key=p.__getitem__)), extra={"probs": p}) for p in probs]

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": "classifier", "max_length": self.max_length}
