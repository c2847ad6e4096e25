"""Run MEGA-Bench conformance cases through the ``megabench`` parser and query scoring directly."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any

from omnieval.benchmarks.megabench.metrics.query import score_query
from omnieval.benchmarks.megabench.parser import parse_megabench
from omnieval.types import Sample

REPO_ROOT = Path(__file__).resolve().parents[2]
DEV_CASES = REPO_ROOT.parent / "shared" / "conformance" / "megabench" / "dev_cases.jsonl"
"""The development cases live in ``../shared`` beside the checkout (as in CI)."""
SKIP_WITHOUT_CASES = not DEV_CASES.exists() and not os.environ.get("CI")
"""Outside CI a checkout without ``../shared`` skips these tests; in CI a missing file is a failure."""


def _gold(row: dict[str, Any]) -> dict[str, Any]:
    gold = ast.literal_eval(row["answer"])
    return json.loads(json.dumps(gold))  # the original round-trips answers through JSON (tuples → lists)


def score_row(row: dict[str, Any], *, strict: bool = False) -> float:
    """The query score of ``row['response']`` (may be -1, as in the original)."""
    info = ast.literal_eval(row["metric_info"])
    context = ast.literal_eval(row["eval_context"]) if row["eval_context"].strip() else {}
    sample = Sample(
        id=str(row["id"]), targets=(_gold(row),), metadata={"metric_info": info, "eval_context": context}
    )
    parsed = parse_megabench(row["response"], sample, strict=strict)
    value = parsed.value if parsed.ok else parsed.fallback
    query, _ = score_query(value, sample.targets[0], info, context, strict=strict)
    return query


def load_cases(path: Path = DEV_CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
