"""The MSMIA detector: a classifier over (ΔL, Δe) rows, per-item and dataset leak probabilities, AUC."""

from __future__ import annotations

import json
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from omnieval.errors import ConfigError
from omnieval.protect.msmia.features import ItemFeatures

__all__ = ["Detector", "auc_roc", "train_detector"]


def auc_roc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Area under the ROC curve (Mann–Whitney, ties counted half)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0]
    if not pos or not neg:
        raise ConfigError("AUC needs both leaked (1) and clean (0) items")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


class Detector:
    """A fitted classifier; ``item_score`` is the mean over neighbours of P(leaked | ΔL_k, Δe_k)."""

    def __init__(self, model: Any, *, meta: dict[str, Any]) -> None:
        self.model, self.meta = model, meta

    def item_score(self, item: ItemFeatures) -> float:
        return float(self.model.predict_proba(item.matrix())[:, 1].mean())

    def dataset_probability(self, items: Sequence[ItemFeatures]) -> float:
        """The paper's dataset-level leak probability: the mean item score."""
        return float(np.mean([self.item_score(i) for i in items])) if items else float("nan")

    def save(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "detector.pkl").write_bytes(pickle.dumps(self.model))
        (folder / "detector.json").write_text(json.dumps(self.meta, indent=1), encoding="utf-8")
        return folder

    @classmethod
    def load(cls, folder: Path) -> Detector:
        if not (folder / "detector.pkl").is_file():
            raise ConfigError(f"{folder} holds no MSMIA detector (detector.pkl missing)")
        meta = json.loads((folder / "detector.json").read_text(encoding="utf-8"))
        return cls(pickle.loads((folder / "detector.pkl").read_bytes()), meta=meta)


def train_detector(
    base: Sequence[ItemFeatures], leaked: Sequence[ItemFeatures], *, seed: int = 0
) -> Detector:
    """Fit on every neighbour row: rows from the base model are 0, rows from the leaked copy are 1.

    The paper leaves the classifier open; a standardised logistic regression is small, fast and hard
    to overfit on the few hundred items a benchmark offers.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if not base or not leaked:
        raise ConfigError("training an MSMIA detector needs features from both the base and the leaked model")
    rows = np.vstack([i.matrix() for i in (*base, *leaked)])
    labels = np.concatenate(
        [np.zeros(sum(len(i.delta_loss) for i in base)), np.ones(sum(len(i.delta_loss) for i in leaked))]
    )
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=1.0, random_state=seed))
    model.fit(rows, labels)
    meta = {
        "classifier": "standardised logistic regression",
        "n_items": [len(base), len(leaked)],
        "n_rows": int(rows.shape[0]),
        "n_features": int(rows.shape[1]),
        "seed": seed,
    }
    return Detector(model, meta=meta)
