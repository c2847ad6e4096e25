"""Watermark impact (MERA Multi Table 4): how far does a mark move each task's score?

Input is the comparison document of a clean run and a marked run of the same model on the same items
(``omnieval compare``'s paired bootstrap). The paper prints CIs whose lower bounds are clipped at 0,
which reads as the CI of the *absolute* difference; we report both that and the signed CI, in
percentage points, so a reader can check either convention.
"""

from __future__ import annotations

from typing import Any

from omnieval.errors import ConfigError

__all__ = ["abs_interval", "watermark_impact"]


def abs_interval(lo: float, hi: float) -> tuple[float, float]:
    """The interval of |d| for d in [lo, hi]: (0, max) when it straddles 0, else the sorted magnitudes."""
    if lo <= 0.0 <= hi:
        return 0.0, abs(max(-lo, hi))  # abs: max(-0.0, 0.0) is -0.0, printed as a negative bound
    return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))


def watermark_impact(doc: dict[str, Any], *, tolerance_pp: float = 5.0) -> dict[str, Any]:
    """Per task: signed diff (marked − clean) and its 95 % CIs in percentage points, and a verdict."""
    if len(doc.get("runs", [])) != 2:
        raise ConfigError("watermark impact compares exactly two runs: the clean one, then the marked one")
    clean, marked = doc["runs"]
    tasks: dict[str, Any] = {}
    for name, block in doc["tasks"].items():
        pair = next((p for p in block["pairwise"] if p["a"] == clean and p["b"] == marked), None)
        if pair is None or pair["ci95"] is None:
            tasks[name] = {"computed": False, "reason": "no paired samples"}
            continue
        lo, hi = (100.0 * v for v in pair["ci95"])
        abs_lo, abs_hi = abs_interval(lo, hi)
        tasks[name] = {
            "computed": True,
            "n_paired": pair["n_paired"],
            "diff_pp": round(100.0 * pair["diff"], 4),
            "ci95_pp": [round(lo, 4), round(hi, 4)],
            "abs_ci95_pp": [round(abs_lo, 4), round(abs_hi, 4)],
            "p_value": pair["p_value"],
            "test": pair["test"],
            "within_tolerance": abs_hi < tolerance_pp,
        }
    warnings = doc.get("warnings", [])
    expected = [
        w for w in warnings if any(w.startswith(f"task {name!r}: hash differs") for name in doc["tasks"])
    ]
    return {
        "clean": clean,
        "marked": marked,
        "tolerance_pp": tolerance_pp,
        "tasks": tasks,
        "warnings": [w for w in warnings if w not in expected],
        "notes": [f"{w}: expected, the marked media changes the task's content hash" for w in expected],
    }
