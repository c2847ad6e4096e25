"""What a run's records cost: the model's answer plus every judge attempt (``cost_usd`` fields)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

__all__ = ["record_cost", "recorded_spend"]


def recorded_spend(path: Path) -> float:
    """What the records of earlier invocations cost (model and judge calls): the limit covers the whole
    run."""
    if not path.exists():
        return 0.0
    total = 0.0
    with path.open("rb") as fh:
        for line in fh:
            if b'"cost_usd"' not in line or not line.endswith(b"\n"):
                continue
            record = orjson.loads(line)
            total += record_cost(record)
    return total


def record_cost(record: dict[str, Any]) -> float:
    """A record's model cost plus the cost of each of its judge attempts."""
    total = float(record.get("cost_usd") or 0.0)
    for call in (record.get("judge") or {}).get("calls") or ():
        total += sum(float(a.get("cost_usd") or 0.0) for a in call.get("attempts") or ())
    return total
