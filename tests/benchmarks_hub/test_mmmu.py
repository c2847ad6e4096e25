"""MMMU: the authors' eval_utils.py (vendored unchanged) runs beside our parsing and scoring."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from mmmu import eval_utils as official  # vendored unchanged (tests/benchmarks_hub/vendor/mmmu)

from omnieval.benchmarks.mmmu.scoring import choose_letter, is_correct, open_candidates
from omnieval.prompts.render import render_messages
from omnieval.runner.resolve import resolve_tasks
from omnieval.testing.hub_copies import write_hub_copy
from tests.benchmarks_hub.helpers import run_copy

OPTIONS = {"A": "$6", "B": "7 apples", "C": "Paris", "D": "the cat"}

MC_EDGE = [
    "A",
    "(B)",
    "The answer is (C).",
    "(A) or (B)? I pick (B)",
    "A B",
    "It is B, not A",
    "B.",
    "'C'",
    ",D!",
    "I believe the answer is the cat because it is on the mat",
    "Paris is the capital and 7 apples are red",
    "nothing useful",
    "",
    "The option D is the best among all the options given here",
    "(E)",
    "a",
    "Between A and D I choose D",
    "A.",
    ":(A):",
    "the answer: 7 apples, final",
    "$6 is the price, so it is A",
]
OPEN_EDGE = [
    "42",
    "The answer is 42.",
    "so the result is 3,000",
    "1.5e3",
    "-0.25",
    "x = 12\ny = 13",
    "Paris",
    "The capital is paris. So it is Paris",
    "It could be 24/7",
    "answer: 3.429",
    "It is .",
    "",
    "Therefore the final answer is 1,234,567.",
    "thus MgS",
    "The value is 2.999",
    "A",
    "is a",
    "= 5",
    "First. Second. The answer is 7",
    "no numbers here at all, none",
    "12 apples and 13 pears",
]
GOLDS = ["42", "3000", "1500", "-0.25", "13", "Paris", "24/7", "3.429", "1234567", "MgS", "3", "a", "5", "7"]


def _random_texts(n: int, words: list[str]) -> list[str]:
    rng = random.Random(36)
    return [" ".join(rng.choice(words) for _ in range(rng.randint(1, 14))) for _ in range(n)]


def _official_letter(response: str) -> set[str]:
    """Every letter the original returns under five random seeds (several: it guessed)."""
    picks = set()
    for seed in range(5):
        random.seed(seed)
        picks.add(official.parse_multi_choice_response(response, list(OPTIONS), dict(OPTIONS)))
    return picks


def test_multiple_choice_parsing_agrees_with_the_authors() -> None:
    words = [
        "A",
        "B",
        "C",
        "D",
        "(A)",
        "(B)",
        "(C)",
        "the",
        "answer",
        "is",
        "Paris",
        "cat",
        "the cat",
        "7 apples",
        "$6",
        ".",
        ",",
        "so",
        "I",
        "think",
        "option",
        "(D)",
        "!",
        "'",
    ]
    for response in [*MC_EDGE, *_random_texts(1500, words)]:
        mine, how = choose_letter(response, OPTIONS)
        picks = _official_letter(response)
        if mine is None:
            assert len(picks) > 1, (response, picks)  # the original guessed at random
        else:
            assert picks == {mine}, (response, how, picks)


def test_open_parsing_agrees_with_the_authors() -> None:
    words = [
        "42",
        "3,000",
        "is",
        "so",
        "the",
        "answer",
        "result",
        "=",
        "1.5",
        "e3",
        "Paris",
        "\n",
        ".",
        "x",
        "therefore",
        "final",
        "-2",
        "could be",
        "MgS",
        "1,234,567",
        "0.333",
        "thus",
        "A",
    ]
    for response in [*OPEN_EDGE, *_random_texts(1500, words)]:
        official_set = official.parse_open_response(response)
        mine = open_candidates(response)
        assert set(mine) == set(official_set), response
        for gold in GOLDS:
            assert is_correct("open", gold, mine) == official.eval_open(gold, official_set), (response, gold)
        assert is_correct("open", ["24/7", "3.429"], mine) == official.eval_open(
            ["24/7", "3.429"], official_set
        )


def test_multiple_choice_verdict_is_the_authors() -> None:
    for gold in ("A", ["A", "B"]):
        for pred in ("A", "B", "C"):
            assert is_correct("multiple-choice", gold, pred) == official.eval_multi_choice(gold, pred)


def test_run_reports_discipline_and_subject(tmp_path: Path) -> None:
    root = write_hub_copy("mmmu", tmp_path / "MMMU", n=2)  # 2 rows in each of the 30 subject folders
    right = {"A": "(A)", "B": "B", "C": "The answer is C.", "D": "(D)"}

    def answer(sample_id: str) -> str:
        position = int(sample_id.rsplit("_", 1)[1]) - 1
        return "the cat" if sample_id.startswith("validation_Art_") else right["ABCD"[position % 4]]

    block, records = run_copy(tmp_path, "mmmu", root, answer)
    assert block["n"] == 60
    subjects = block["breakdowns"]["subject"]
    assert len(subjects) == 30 and subjects["Accounting"] == {"n": 2, "score": 1.0}
    assert subjects["Art"]["score"] < 1.0  # "the cat": too short to match option text, so a random letter
    art = block["breakdowns"]["discipline"]["Art and Design"]
    assert art["n"] == 8
    assert block["score"] == pytest.approx(sum(r["score"] for r in records) / 60)


def test_images_are_interleaved_where_the_text_names_them(tmp_path: Path) -> None:
    root = write_hub_copy("mmmu", tmp_path / "MMMU", n=2)
    (task,) = resolve_tasks([f"mmmu:{root}"])
    sample = next(s for s in task.iter_samples() if len(s.media) == 2)
    (message,) = render_messages(sample, task.spec, variant=task.spec.prompt.all_variants()[0])
    kinds = [part.type for part in message.content]  # type: ignore[union-attr]
    assert kinds == ["image", "text", "image", "text"]
    assert sample.input.endswith(
        "\n\n(A) a cat\n(B) a dog\n(C) a bird\n(D) a fish\n\n\nAnswer with the option's "
        "letter from the given choices directly."
    )


def test_strict_metrics_make_no_answer_a_parse_failure(tmp_path: Path) -> None:
    root = write_hub_copy("mmmu", tmp_path / "MMMU", n=1)
    (task,) = resolve_tasks([f"mmmu:{root}"], strict_metrics=True)
    assert task.spec.parser.name == "mmmu.response_strict"


def test_a_missing_subject_folder_is_named(tmp_path: Path) -> None:
    from omnieval.errors import SourceError

    root = write_hub_copy("mmmu", tmp_path / "MMMU", n=1, configs=["Art"])
    with pytest.raises(SourceError, match=r"field 'config': mmmu: config 'Accounting' is missing"):
        resolve_tasks([f"mmmu:{root}"])
