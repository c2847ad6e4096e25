"""Video-MME: the authors' letter extraction and "correct over answered". Their script has no licence, so
these cases are worked by hand from eval_your_results.py (thanku-all/parse_answer@afd52cf)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from omnieval.benchmarks.videomme.scoring import extract_letter
from omnieval.runner.resolve import resolve_tasks
from omnieval.testing.hub_copies import write_hub_copy
from tests.benchmarks_hub.helpers import run_copy

# (response, what the original extracts, what --strict-metrics extracts); worked by hand:
# strip, delete each prefix in the list's order, then the first of A B C D anywhere ("" when none).
CASES = [
    ("B", "B", "B"),
    ("The best answer is C.", "C", "C"),
    ("The answer is (D)", "D", "D"),
    ("Answer: B", "B", "B"),  # "Answer:" deleted first, else its own "A" would win
    ("Among the options, B", "A", "B"),  # the capital A of "Among"
    ("The best option is C", "C", "C"),  # "The best option is" is never deleted; it holds no A-D
    ("Best answer: D", "B", "D"),  # "Best answer:" is never deleted (missing comma): its "B" wins
    ("Best answer:Best option: D", "D", "D"),  # the two prefixes written back to back are deleted
    ("I cannot tell", "", ""),
    ("none of these look right to me at all honestly, sorry about that", "", ""),
    ("  C  ", "C", "C"),
    ("Definitely (A)", "D", "A"),  # the D of "Definitely"
    ("The correct option is B", "B", "B"),
    ("a", "", ""),
]


@pytest.mark.parametrize(("response", "original", "strict"), CASES)
def test_letter_extraction(response: str, original: str, strict: str) -> None:
    assert extract_letter(response) == original
    assert extract_letter(response, strict=True) == strict


def _answers(sample_id: str) -> str:
    video, question = sample_id.split("-")
    position = (int(video) - 1) * 3 + int(question) - 1
    gold = "ABCD"[position % 4]
    return {0: gold, 1: "no idea", 2: "ABCD".replace(gold, "")[0]}.get(position % 3, gold)


def test_overall_is_correct_over_answered_and_broken_down_by_duration(tmp_path: Path) -> None:
    root = write_hub_copy("videomme", tmp_path / "Video-MME", n=9)  # 3 videos (short, medium, long) x 3
    block, records = run_copy(tmp_path, "videomme", root, _answers)
    states = {r["sample_id"]: r["state"] for r in records}
    assert list(states.values()).count("parse_failed") == 3  # unanswered: counted, left out of the overall
    assert block["score"] == pytest.approx(3 / 6)
    assert block["breakdowns"]["duration"] == {
        "long": {"n": 3, "score": 0.5},
        "medium": {"n": 3, "score": 0.5},
        "short": {"n": 3, "score": 0.5},
    }


def test_strict_counts_unanswered_as_wrong(tmp_path: Path) -> None:
    from omnieval.api import evaluate
    from omnieval.testing.hub_copies import hub_row_ids
    from tests.benchmarks_hub.helpers import replay

    root = write_hub_copy("videomme", tmp_path / "Video-MME", n=9)
    model = replay(tmp_path, "videomme", {i: _answers(i) for i in hub_row_ids("videomme", root)})
    out = tmp_path / "strict"
    evaluate(model=model, tasks=[f"videomme:{root}"], output=out, quiet=True, strict_metrics=True)
    block = json.loads((out / "results.json").read_text())["tasks"]["videomme"]
    assert block["score"] == pytest.approx(3 / 9)


def test_missing_videos_are_named_once_and_marked(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = write_hub_copy("videomme", tmp_path / "Video-MME", n=3)
    (root / "data").mkdir()
    (root / "data" / "synthetic0.mp4").write_bytes(b"\x00")
    (task,) = resolve_tasks([f"videomme:{root}"])
    with caplog.at_level(logging.WARNING):
        samples = list(task.iter_samples())
    assert all(s.media and s.media[0].path == str(root / "data" / "synthetic0.mp4") for s in samples)
    root2 = write_hub_copy("videomme", tmp_path / "no-videos", n=3)
    (task2,) = resolve_tasks([f"videomme:{root2}"])
    with caplog.at_level(logging.WARNING):
        bare = list(task2.iter_samples())
    assert all(not s.media and s.metadata["video_missing"] for s in bare)
    assert sum("unzip videos_chunked" in r.message for r in caplog.records) == 1
    assert bare[0].input.startswith("Select the best answer") and bare[0].input.endswith(
        "The best answer is:"
    )
