"""Size-band and quantization summaries of a model set (MARKER §5.2: ≤2B, 3–4B, 7–12B; 4- vs 8-bit).

Each run directory gives a model name and per-task scores (``results.json``). Parameter count and
weight precision are read from the name (``Qwen2.5-VL-7B-Instruct``, ``llava-ov-7b-4bit``, ``int8``,
``AWQ``/``GPTQ``/``NF4`` = 4 bits) unless a model file gives them (``{"MODEL": {"params_b": 7,
"bits": 4, "base": "qwen2-vl-7b"}}``). Unquantized models count as 16 bits. Quantization deltas
compare runs of the same base model (the name without its precision tag): higher minus lower bits.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omnieval.errors import StoreError
from omnieval.types.files import ResultsFile, load_file

__all__ = [
    "BANDS",
    "ModelFacts",
    "ModelScores",
    "band_of",
    "load_scores",
    "model_facts",
    "quantization_deltas",
    "size_bands",
]

BANDS = (("<=2B", 0.0, 2.5), ("3-4B", 2.5, 5.0), ("7-12B", 5.0, 13.0), (">12B", 13.0, math.inf))
"""The article's bands, with the gaps between them closed (5B goes with 7-12B, 2.5B with 3-4B)."""

_PARAMS = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])")
_BITS = re.compile(
    r"(?i)(?<![a-z])(?:(\d{1,2})[-_ ]?bits?|int(\d{1,2})|q(\d)(?:_k(?:_[msl])?)?|(awq|gptq|nf4))(?![a-z])"
)


@dataclass(frozen=True)
class ModelFacts:
    model: str
    params_b: float | None
    bits: int
    base: str


@dataclass(frozen=True)
class ModelScores:
    model: str
    scores: dict[str, float]


def model_facts(model: str, overrides: dict[str, Any] | None = None) -> ModelFacts:
    """Size, precision and base name of ``model``, from the name or ``overrides[model]``."""
    given = (overrides or {}).get(model, {})
    short = model.rsplit("/", 1)[-1]
    size = _PARAMS.findall(short)
    bits_hit = _BITS.search(short)
    bits = 16
    if bits_hit:
        number = next((g for g in bits_hit.groups()[:3] if g), None)
        bits = int(number) if number else 4
    base = _BITS.sub("", short).strip("-_ ") if bits_hit else short
    return ModelFacts(
        model=model,
        params_b=float(given["params_b"]) if "params_b" in given else (float(size[-1]) if size else None),
        bits=int(given.get("bits", bits)),
        base=str(given.get("base", re.sub(r"[-_ ]{2,}", "-", base).lower())),
    )


def band_of(params_b: float | None) -> str:
    if params_b is None:
        return "unknown"
    return next(name for name, low, high in BANDS if low < params_b <= high)


def load_scores(run_dir: Path) -> ModelScores:
    file = Path(run_dir) / "results.json"
    if not file.is_file():
        raise StoreError(f"{run_dir}: no results.json (not a finished run directory)")
    data = load_file(file, ResultsFile)
    scores = {name: block.score for name, block in data.tasks.items() if block.score is not None}
    if not scores:
        raise StoreError(f"{file}: no task scores")
    return ModelScores(data.model or Path(run_dir).name, scores)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def size_bands(runs: list[ModelScores], facts: dict[str, ModelFacts]) -> dict[str, dict[str, Any]]:
    """Per band: its models and the mean score per task and overall (a task no model ran is absent)."""
    out: dict[str, dict[str, Any]] = {}
    for band in [b[0] for b in BANDS] + ["unknown"]:
        members = [r for r in runs if band_of(facts[r.model].params_b) == band]
        if not members:
            continue
        tasks = sorted({t for r in members for t in r.scores})
        per_task = {t: _mean([r.scores[t] for r in members if t in r.scores]) for t in tasks}
        out[band] = {
            "models": [r.model for r in members],
            "tasks": per_task,
            "mean": _mean([sum(r.scores.values()) / len(r.scores) for r in members]),
        }
    return out


def quantization_deltas(runs: list[ModelScores], facts: dict[str, ModelFacts]) -> list[dict[str, Any]]:
    """For each base model run at several precisions: per-task score at higher bits minus lower bits."""
    by_base: dict[str, list[ModelScores]] = {}
    for r in runs:
        by_base.setdefault(facts[r.model].base, []).append(r)
    out = []
    for base, group in sorted(by_base.items()):
        group = sorted(group, key=lambda r: facts[r.model].bits)
        for low, high in itertools.pairwise(group):
            common = sorted(set(low.scores) & set(high.scores))
            out.append(
                {
                    "base": base,
                    "lower": low.model,
                    "lower_bits": facts[low.model].bits,
                    "higher": high.model,
                    "higher_bits": facts[high.model].bits,
                    "delta": {t: high.scores[t] - low.scores[t] for t in common},
                }
            )
    return out
