"""The ``megabench`` leaderboard scheme against the paper's own numbers."""

from __future__ import annotations

from typing import Any

import pytest

from omnieval.aggregate.schemes import schemes
from omnieval.benchmarks.megabench.scheme import overall


def _task(
    score: float, *, set_: str = "core", cot: bool | None = None, n: int = 15, judged: float = 1.0, **kw: Any
) -> dict[str, Any]:
    metrics = {"megabench_score": score, "megabench_judged": judged if set_ == "open" else 0.0}
    return {
        "score": score,
        "n": n,
        "states": {"ok": n},
        "metrics": metrics,
        "metadata": {"megabench": {"set": set_, "cot": cot, **kw}},
    }


def test_overall_formula_matches_paper_table_2() -> None:
    # Claude-3.5-Sonnet (1022): Core 52.59, Open 65.63 → 54.27; Llama-3.2-11B: 16.00, 31.73 → 18.02.
    assert round(overall(52.59, 440, 65.63, 65) or 0, 2) == 54.27
    assert round(overall(16.00, 440, 31.73, 65) or 0, 2) == 18.02
    # Single-image subset: GPT-4o (273·55.30 + 42·66.00)/315 = 56.73.
    assert round(overall(55.30, 273, 66.00, 42) or 0, 2) == 56.73
    assert overall(None, 0, 0.5, 3) == 0.5


def test_board_takes_better_core_variant_and_weights_by_task_count() -> None:
    cot_run = {
        "model": "m",
        "tasks": {"c1": _task(0.8, cot=True, app="Coding"), "c2": _task(0.6, cot=True, app="Planning")},
    }
    plain_run = {
        "model": "m",
        "tasks": {
            "c1": _task(0.5, cot=False),
            "c2": _task(0.5, cot=False),
            "o1": _task(
                0.9, set_="open", skills=["Text Recognition (OCR)", "Planning and Decision Making"], n=10
            ),
        },
    }
    other = {
        "model": "x",
        "tasks": {"c1": _task(0.1, cot=False), "plain_task": {"score": 1.0, "n": 1, "states": {"ok": 1}}},
    }
    board = schemes.get("megabench")([cot_run, plain_run, other])
    top, low = board["rows"]
    assert top["model"] == "m" and top["core_variant"] == "core_cot"
    assert top["core"] == pytest.approx(0.7) and top["core_no_cot"] == pytest.approx(0.5)
    assert top["overall"] == pytest.approx((2 * 0.7 + 1 * 0.9) / 3)
    keywords = board["keyword_stats"]["m"]
    assert keywords["app"]["Coding"] == {"count": 1, "num_samples": 15, "average_score": 0.8}
    assert keywords["skills"]["Planning and Decision Making"]["average_score"] == pytest.approx(0.9)
    assert low["model"] == "x" and low["n_core_tasks"] == 1 and low["open"] is None
    forced = schemes.get("megabench")([cot_run, plain_run], variant="no_cot")
    assert forced["rows"][0]["core"] == pytest.approx(0.5)


def test_tasks_without_a_demo_follow_their_runs_prompt_mode() -> None:
    run = {"model": "m", "tasks": {"a": _task(1.0, cot=True), "b": _task(0.0, cot=None)}}
    (row,) = schemes.get("megabench")([run])["rows"]
    assert row["core_variant"] == "core_cot" and row["n_core_tasks"] == 2 and row["core"] == 0.5


def test_open_task_without_a_judged_query_is_not_computed_never_zero() -> None:
    run = {
        "model": "m",
        "tasks": {
            "c1": _task(0.8, cot=True),
            "c2": _task(0.4, cot=True),
            "o_unjudged": _task(0.0, set_="open", judged=0.0, skills=["Planning"]),
            "o_judged": _task(0.6, set_="open", judged=0.2),  # one judged query in five is enough
        },
    }
    (row,) = schemes.get("megabench")([run])["rows"]
    assert row["open_not_computed"] == ["o_unjudged"] and row["overall_partial"] is True
    assert row["open"] == pytest.approx(0.6) and row["n_open_tasks"] == 1
    assert row["overall"] == pytest.approx((2 * 0.6 + 1 * 0.6) / 3)  # (n_core·Core + n_open·Open), 0 left out
    assert "Planning" not in schemes.get("megabench")([run])["keyword_stats"]["m"]["skills"]
    only_unjudged = {
        "model": "m",
        "tasks": {"c1": _task(0.8, cot=True), "o": _task(0.0, set_="open", judged=0.0)},
    }
    (row,) = schemes.get("megabench")([only_unjudged])["rows"]
    assert row["open"] is None and row["overall"] == pytest.approx(0.8) and row["overall_partial"] is True
    (full,) = schemes.get("megabench")([{"model": "m", "tasks": {"c1": _task(0.8, cot=True)}}])["rows"]
    assert full["overall_partial"] is False and full["open_not_computed"] == []
