"""The regression judge mode (§3.2): a linear head on the last decoder block of a local transformers
model predicts a real-valued score; trained with MSE and AdamW.

Pooling, unspecified in the paper: the hidden state of the last non-padding token of the final block
(the head reads the prompt plus any rationale, which the paper's model generates first). Inputs longer
than ``max_length`` are cut from the left so the end of the text, where the verdict forms, stays.
``--model pollux_reg/HEAD_DIR`` serves a saved head through the ordinary runner: each answer is
``[RESULT] <score> [END]``, parsed by ``pollux_judge`` with ``allow_real``.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, ClassVar

from omnieval.backends.base import BackendOptions, InProcessBackend, register_backend
from omnieval.errors import BackendError
from omnieval.types import Request, Response

__all__ = ["RegressionJudge", "RegressionJudgeBackend"]

POOLING = "last_token"
HEAD_FILE, CONFIG_FILE = "head.pt", "head.json"


class RegressionJudge:
    """A frozen (by default) base model plus a trainable ``Linear(hidden, 1)`` head."""

    def __init__(
        self, base: str | Path, *, device: str = "cpu", max_length: int = 512, seed: int = 0
    ) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        torch.manual_seed(seed)
        self.base = str(base)
        self.device = device
        self.tokenizer = AutoTokenizer.from_pretrained(self.base)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "right"
        self.tokenizer.truncation_side = "left"
        self.model = AutoModel.from_pretrained(self.base).to(device)
        limit = getattr(self.model.config, "max_position_embeddings", max_length) or max_length
        self.max_length = min(max_length, int(limit))
        self.head = torch.nn.Linear(int(self.model.config.hidden_size), 1).to(device)

    def _pooled(self, texts: list[str]) -> Any:
        batch = self.tokenizer(
            texts, return_tensors="pt", padding=True, truncation=True, max_length=self.max_length
        )
        batch = {k: v.to(self.device) for k, v in batch.items() if k in ("input_ids", "attention_mask")}
        hidden = self.model(**batch).last_hidden_state
        last = batch["attention_mask"].sum(dim=1) - 1
        return hidden[range(hidden.shape[0]), last]

    def predict(self, texts: list[str], *, batch_size: int = 8) -> list[float]:
        import torch

        out: list[float] = []
        self.model.eval()
        with torch.no_grad():
            for start in range(0, len(texts), batch_size):
                out.extend(self.head(self._pooled(texts[start : start + batch_size])).squeeze(-1).tolist())
        return out

    def fit(
        self,
        texts: list[str],
        targets: list[float],
        *,
        steps: int = 20,
        lr: float = 1e-2,
        train_backbone: bool = False,
    ) -> list[float]:
        """Full-batch MSE steps with AdamW; returns the loss per step."""
        import torch

        if len(texts) != len(targets) or not texts:
            raise ValueError("fit needs as many targets as texts, and at least one")
        params = list(self.head.parameters()) + (list(self.model.parameters()) if train_backbone else [])
        optimiser = torch.optim.AdamW(params, lr=lr)
        goal = torch.tensor(targets, dtype=torch.float32, device=self.device)
        losses = []
        self.model.train(train_backbone)
        for _ in range(steps):
            optimiser.zero_grad()
            with torch.set_grad_enabled(True):
                features = self._pooled(texts) if train_backbone else self._pooled(texts).detach()
                loss = torch.nn.functional.mse_loss(self.head(features).squeeze(-1), goal)
            loss.backward()
            optimiser.step()
            losses.append(float(loss.detach()))
        return losses

    def save(self, out: Path) -> Path:
        import torch

        out.mkdir(parents=True, exist_ok=True)
        torch.save(self.head.state_dict(), out / HEAD_FILE)
        config = {
            "base": self.base,
            "pooling": POOLING,
            "max_length": self.max_length,
            "hidden_size": self.head.in_features,
        }
        (out / CONFIG_FILE).write_text(json.dumps(config, indent=2), encoding="utf-8")
        return out

    @classmethod
    def load(cls, head_dir: Path, *, device: str = "cpu") -> RegressionJudge:
        import torch

        config_path = head_dir / CONFIG_FILE
        if not config_path.exists():
            raise BackendError(
                f"{head_dir} holds no {CONFIG_FILE}: not a saved regression head", retryable=False
            )
        config = json.loads(config_path.read_text(encoding="utf-8"))
        judge = cls(config["base"], device=device, max_length=int(config["max_length"]))
        judge.head.load_state_dict(torch.load(head_dir / HEAD_FILE, map_location=device))
        return judge


@register_backend("pollux_reg")
class RegressionJudgeBackend(InProcessBackend):
    """``pollux_reg/HEAD_DIR``: a saved regression head answering judge prompts with a real score."""

    modalities: ClassVar[frozenset[str]] = frozenset({"text"})

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        self._judge: RegressionJudge | None = None
        self._lock = threading.Lock()

    def run_batch(self, requests: list[Request]) -> list[Response | BaseException]:
        with self._lock:
            try:
                if self._judge is None:
                    self._judge = RegressionJudge.load(Path(self.model), device=self.options.device or "cpu")
                texts = ["\n\n".join(m.text for m in r.messages) for r in requests]
                scores = self._judge.predict(texts, batch_size=self.options.batch_size)
            except BackendError as exc:
                return [exc for _ in requests]
        return [Response(text=f"[RESULT] {score:.4f} [END]") for score in scores]
