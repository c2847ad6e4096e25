"""``omnieval judge train``: fine-tune an encoder judge on labelled (question, gold, prediction, label)
triplets.

As MERA's judge (paper App. D.2): ``question [SEP] gold [SEP] prediction`` → {0, 1}, cross-entropy with
class weights, early stopping on development F1. The data is split train / dev / test (by the optional
``source`` column when present, so no source is in two splits); the report gives F1, precision,
recall and the EM-agreement rate (share judged 1 among test items whose prediction equals the gold)
on the test split. The best checkpoint is saved as a folder that ``--judge hf/PATH`` loads.
"""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omnieval.errors import ConfigError
from omnieval.store.jsonl import json_objects

__all__ = ["TrainSettings", "Triplet", "read_triplets", "train_judge"]

_ALIASES = {
    "question": ("question", "query"),
    "gold": ("gold", "reference", "target", "answer"),
    "prediction": ("prediction", "pred", "response", "model_answer"),
    "label": ("label", "y"),
}


@dataclass(frozen=True)
class Triplet:
    question: str
    gold: str
    prediction: str
    label: int
    source: str = ""


@dataclass(frozen=True)
class TrainSettings:
    epochs: int = 3
    lr: float = 2e-5
    batch_size: int = 16
    max_length: int = 512
    patience: int = 2
    dev_fraction: float = 0.15
    test_fraction: float = 0.15
    seed: int = 0
    device: str | None = None


def _field(row: dict[str, Any], name: str, *, where: str) -> Any:
    for key in _ALIASES[name]:
        if key in row and row[key] is not None:
            return row[key]
    raise ConfigError(f"{where}: missing field {name!r} (accepted names: {', '.join(_ALIASES[name])})")


def _triplet(row: dict[str, Any], *, where: str) -> Triplet:
    label = _field(row, "label", where=where)
    try:
        value = int(float(label))
    except (TypeError, ValueError):
        value = -1
    if value not in (0, 1):
        raise ConfigError(f"{where}: field 'label' must be 0 or 1, got {label!r}")
    text = {k: _field(row, k, where=where) for k in ("question", "gold", "prediction")}
    return Triplet(
        str(text["question"]), str(text["gold"]), str(text["prediction"]), value, str(row.get("source") or "")
    )


def read_triplets(path: Path) -> list[Triplet]:
    """Rows of a CSV or JSONL file; every problem names the file, the line and the field."""
    if not path.is_file():
        raise ConfigError(f"training data {path} does not exist")
    out: list[Triplet] = []
    if path.suffix.lower() == ".csv":
        with path.open(encoding="utf-8", newline="") as fh:
            for number, row in enumerate(csv.DictReader(fh), start=2):
                out.append(_triplet(row, where=f"{path}, line {number}"))
    else:
        for number, row in json_objects(
            path, error=lambda n, reason: ConfigError(f"{path}, line {n}: {reason}")
        ):
            out.append(_triplet(row, where=f"{path}, line {number}"))
    if len(out) < 6 or len({t.label for t in out}) < 2:
        raise ConfigError(f"{path}: need at least 6 labelled rows with both labels 0 and 1 (got {len(out)})")
    return out


def _split(rows: list[Triplet], s: TrainSettings) -> tuple[list[Triplet], list[Triplet], list[Triplet]]:
    rng = random.Random(s.seed)
    sources = sorted({t.source for t in rows})
    if len(sources) >= 3:  # whole sources per split, as MERA's judge data
        rng.shuffle(sources)
        n_test = max(1, round(len(sources) * s.test_fraction))
        n_dev = max(1, round(len(sources) * s.dev_fraction))
        test, dev = set(sources[:n_test]), set(sources[n_test : n_test + n_dev])
        return (
            [t for t in rows if t.source not in test | dev],
            [t for t in rows if t.source in dev],
            [t for t in rows if t.source in test],
        )
    shuffled = rows[:]
    rng.shuffle(shuffled)
    n_test = max(2, round(len(rows) * s.test_fraction))
    n_dev = max(2, round(len(rows) * s.dev_fraction))
    return shuffled[n_test + n_dev :], shuffled[n_test : n_test + n_dev], shuffled[:n_test]


def _scores(labels: list[int], preds: list[int], rows: list[Triplet]) -> dict[str, float | None]:
    """F1 / precision / recall of class 1 (0 when undefined, as scikit-learn's ``zero_division=0``) and
    the EM-agreement rate. Three counts do not justify a scikit-learn dependency for training."""
    tp = sum(p == y == 1 for p, y in zip(preds, labels, strict=True))
    precision = tp / sum(preds) if sum(preds) else 0.0
    recall = tp / sum(labels) if sum(labels) else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    exact = [p for p, t in zip(preds, rows, strict=True) if t.prediction.strip() == t.gold.strip()]
    return {
        "f1": f1,
        "precision": precision,
        "recall": recall,
        "em_agreement": sum(exact) / len(exact) if exact else None,
        "n": len(rows),
        "n_exact": len(exact),
    }


class _Model:
    """Tokenizer + classifier with the batching the loop needs."""

    def __init__(self, base: str, s: TrainSettings) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(base)
            self.model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=2)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot load the base encoder {base!r}: {exc}") from None
        if not self.tokenizer.sep_token:
            raise ConfigError(f"base encoder {base!r}: its tokenizer has no sep_token")
        self.model.to(s.device or "cpu")
        self.s = s

    def encode(self, rows: list[Triplet]) -> Any:
        sep = self.tokenizer.sep_token
        texts = [f"{t.question}{sep}{t.gold}{sep}{t.prediction}" for t in rows]
        return self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.s.max_length, return_tensors="pt"
        ).to(self.model.device)

    def predict(self, rows: list[Triplet]) -> list[int]:
        import torch

        self.model.eval()
        out: list[int] = []
        with torch.inference_mode():
            for i in range(0, len(rows), self.s.batch_size):
                out.extend(
                    self.model(**self.encode(rows[i : i + self.s.batch_size])).logits.argmax(-1).tolist()
                )
        return out


def train_judge(
    data: Path, *, base: str, output: Path, settings: TrainSettings | None = None
) -> dict[str, Any]:
    """Fine-tune ``base`` on ``data``; save the best (dev F1) model to ``output``; return the report."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    s = settings or TrainSettings()
    rows = read_triplets(data)
    train, dev, test = _split(rows, s)
    if not train or not dev or not test:
        raise ConfigError(f"{data}: too few rows (or sources) for train/dev/test splits")
    torch.manual_seed(s.seed)
    m = _Model(base, s)
    counts = [sum(t.label == c for t in train) for c in (0, 1)]
    weights = torch.tensor(
        [len(train) / (2 * max(1, c)) for c in counts], dtype=torch.float, device=m.model.device
    )
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    optim = torch.optim.AdamW(m.model.parameters(), lr=s.lr, weight_decay=0.01)
    steps = s.epochs * ((len(train) + s.batch_size - 1) // s.batch_size)
    schedule = get_linear_schedule_with_warmup(optim, 0, max(1, steps))
    rng = random.Random(s.seed)
    best, best_state, history, waited = -1.0, None, [], 0
    for epoch in range(s.epochs):
        m.model.train()
        order = train[:]
        rng.shuffle(order)
        loss = _train_epoch(m, order, s.batch_size, loss_fn=loss_fn, optim=optim, schedule=schedule)
        dev_f1 = float(_scores([t.label for t in dev], m.predict(dev), dev)["f1"] or 0.0)
        history.append({"epoch": epoch + 1, "loss": loss, "dev_f1": dev_f1})
        if dev_f1 > best:
            best, waited = dev_f1, 0
            best_state = {k: v.detach().clone() for k, v in m.model.state_dict().items()}
        else:
            waited += 1
            if waited >= s.patience:
                break
    if best_state is not None:
        m.model.load_state_dict(best_state)
    report = {
        "base": base,
        "data": str(data),
        "splits": {"train": len(train), "dev": len(dev), "test": len(test)},
        "class_weights": weights.tolist(),
        "history": history,
        "best_dev_f1": best,
        "test": _scores([t.label for t in test], m.predict(test), test),
        "settings": s.__dict__,
    }
    _save(m, output, report)
    return report


def _train_epoch(
    m: _Model, order: list[Any], batch_size: int, *, loss_fn: Any, optim: Any, schedule: Any
) -> float:
    """One pass over ``order`` in batches; the last batch's loss (what the history records)."""
    import torch

    loss = None
    for i in range(0, len(order), batch_size):
        batch = order[i : i + batch_size]
        labels = torch.tensor([t.label for t in batch], device=m.model.device)
        loss = loss_fn(m.model(**m.encode(batch)).logits, labels)
        loss.backward()
        optim.step()
        schedule.step()
        optim.zero_grad()
    return float(loss.item()) if loss is not None else float("nan")


def _save(m: _Model, output: Path, report: dict[str, Any]) -> None:
    """The best model with its tokenizer and the training report, loadable by ``--judge hf/FOLDER``."""
    output.mkdir(parents=True, exist_ok=True)
    m.model.config.id2label, m.model.config.label2id = {0: "0", 1: "1"}, {"0": 0, "1": 1}
    m.model.save_pretrained(output)
    m.tokenizer.save_pretrained(output)
    (output / "judge_report.json").write_text(
        json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8"
    )
