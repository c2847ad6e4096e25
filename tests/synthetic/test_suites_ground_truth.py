"""Every generated answer re-derived by the independent evaluator (pixels, decoded frames, sympy)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from synthetic_evaluator import ANSWERS, rows_of

from omnieval.sources.plugins import generators

IMAGE_SUITES = ("shapes", "charts", "tables", "text", "clocks", "math")


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import omnieval.benchmarks  # noqa: F401  (registers the suites)

    root = tmp_path_factory.mktemp("sets")
    sizes = {"shapes": 48, "charts": 54, "video-motion": 24}
    return {
        s: generators.get(s)(root / s, seed=7, n=sizes.get(s, 24)).parent
        for s in (*IMAGE_SUITES, "video-motion")
    }


@pytest.mark.parametrize("suite", [*IMAGE_SUITES, "video-motion"])
def test_every_answer_matches_the_independent_evaluator(sets: dict[str, Path], suite: str) -> None:
    rows = rows_of(sets[suite] / "manifest.jsonl")
    for row in rows:
        assert ANSWERS[suite](row, sets[suite]) == row["answer"], row["id"]


@pytest.mark.parametrize("suite", [*IMAGE_SUITES, "video-motion"])
def test_rows_have_the_fixed_fields_and_cover_languages_and_levels(sets: dict[str, Path], suite: str) -> None:
    rows = rows_of(sets[suite] / "manifest.jsonl")
    media = "video" if suite == "video-motion" else "image"
    for row in rows:
        assert {"id", "task", "question", "answer", media} <= set(row)
        assert (sets[suite] / row[media]).is_file()
    assert {r["lang"] for r in rows} == {"ru", "en"}
    assert {r["difficulty"] for r in rows} == {"easy", "medium", "hard"}
    assert len({r["id"] for r in rows}) == len(rows)
    ru = [r["question"] for r in rows if r["lang"] == "ru"]
    assert all(any("а" <= ch <= "я" for ch in q) for q in ru)


def test_each_suite_asks_every_kind_of_question(sets: dict[str, Path]) -> None:
    tasks = {s: Counter(r["task"] for r in rows_of(sets[s] / "manifest.jsonl")) for s in sets}
    assert set(tasks["shapes"]) == {"shapes_count", "shapes_colour", "shapes_size", "shapes_position"}
    assert {t.split("_")[1] for t in tasks["charts"]} == {"bar", "line", "pie"}
    assert {t.rsplit("_", 1)[1] for t in tasks["charts"]} == {"read", "compare", "compute"}
    assert set(tasks["tables"]) == {"tables_lookup", "tables_sum", "tables_argmax"}
    assert set(tasks["text"]) == {"text_cyrillic", "text_latin"}
    assert set(tasks["math"]) == {"math_arithmetic", "math_algebra"}
    assert set(tasks["video-motion"]) == {"video_count", "video_direction", "video_order", "video_event"}
