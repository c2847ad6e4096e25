"""MMStar and MMBench: VLMEvalKit's rule matching (the original runs beside ours), prompts, CircularEval."""

from __future__ import annotations

import itertools
import random
import tempfile
from pathlib import Path

import pytest
from vlmeval.utils.matching_util import can_infer  # vendored unchanged (tests/benchmarks_hub/vendor)

from omnieval.benchmarks.mmstar.benchmark import split_question
from omnieval.benchmarks.vlmeval.matching import infer_choice
from omnieval.runner.resolve import resolve_tasks
from omnieval.testing.hub_copies import write_hub_copy
from tests.benchmarks_hub.helpers import run_copy

OPTIONS = {"A": "a red square", "B": "the blue circle", "C": "Green", "D": "no"}

EDGE = [
    "A",
    "B.",
    "(C)",
    "[D]",
    "**B**",
    "Answer: C",
    "The answer is B.",
    "the answer is d",
    "The correct answer is **C**.",
    "A and B",
    "I think it is A, but maybe B",
    "Z",
    "Cannot determine the answer",
    "I can't process this file.",
    "Failed to obtain answer via API",
    "",
    "   ",
    "a red square",
    "The blue circle.",
    "green",
    "no",
    "Option A is wrong, the answer is B",
    "A. a red square because the image shows a large red square in the middle of it",
    "Among the options, C",
    "Е",
    "АБВ",
    "answer is E",
    "B is the answer because it is blue and round",
    "#C#",
    "{A}",
    "A;",
    "It is A!",
    "The answer is (B)",
    "answer is **D**",
    "It could be A or it could be Z",
]


def _responses(n: int) -> list[str]:
    rng = random.Random(36)
    words = [
        "A",
        "B",
        "C",
        "D",
        "Z",
        "a",
        "the",
        "answer",
        "is",
        "correct",
        "option",
        "(B)",
        "**C**",
        "red",
        "square",
        "blue circle",
        "green",
        "no",
        ".",
        ",",
        ":",
        "I",
        "think",
        "Answer:",
        "because",
        "x",
    ]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(n)]


@pytest.mark.parametrize("options", [OPTIONS, {"A": "yes", "B": "no"}, {"A": "1", "B": "2", "C": "3"}])
def test_rule_matching_agrees_with_vlmevalkit(options: dict[str, str]) -> None:
    for response in [*EDGE, *_responses(1500)]:
        official = can_infer(response, dict(options)) or None
        assert infer_choice(response, options) == official, response


def test_mmstar_options_are_split_out_of_the_question() -> None:
    question, options = split_question("Which one?\nOptions: A: 1, 2, B: x: y, C: it, D: done.")
    assert question == "Which one?"
    assert options == ("1, 2", "x: y", "it", "done.")
    assert split_question("No options here") == ("No options here", ())


def test_mmstar_prompt_is_vlmevalkits(tmp_path: Path) -> None:
    root = write_hub_copy("mmstar", tmp_path / "MMStar", n=1)
    (task,) = resolve_tasks([f"mmstar:{root}"])
    (sample,) = task.iter_samples()
    assert sample.input == (
        "Question: What is shown?\nOptions:\nA. a red square\nB. a blue circle\nC. a green line\n"
        "D. a yellow star\nPlease select the correct answer from the options above. \n"
    )


def _mmbench_answers(wrong: set[str]) -> object:
    def answer(sample_id: str) -> str:
        index = int(sample_id)
        rotation = index // 1_000_000
        texts = ["red", "blue", "green"]
        shifted = texts[rotation:] + texts[:rotation]
        right = "ABC"[shifted.index("red")]
        return ("ABC".replace(right, "")[0] if sample_id in wrong else right) + "."

    return answer


def test_circular_eval_counts_a_question_only_when_every_rotation_is_right(tmp_path: Path) -> None:
    root = write_hub_copy("mmbench", tmp_path / "MMBench", n=9)  # 3 questions x 3 rotations
    block, records = run_copy(tmp_path, "mmbench", root, _mmbench_answers(wrong={"2000001"}))
    assert {r["sample_id"]: r["score"] for r in records}["2000001"] == 0.0
    assert block["score"] == pytest.approx(2 / 3)  # question 1 has one wrong rotation
    abilities = block["breakdowns"]["l2_category"]
    assert abilities["Finegrained Perception (instance-level)"] == {"n": 3, "score": 1.0}
    assert abilities["Coarse Perception"] == {"n": 3, "score": 0.0}


def test_circular_eval_scores_only_questions_whose_original_row_is_present(tmp_path: Path) -> None:
    root = write_hub_copy("mmbench", tmp_path / "MMBench", n=6, edit=lambda i, row: None if i == 3 else row)
    block, _ = run_copy(tmp_path, "mmbench", root, _mmbench_answers(wrong={"2000001"}))
    assert block["score"] == 1.0  # question 1 (its rotation 2 wrong) has no original row: left out


def test_mmbench_ru_is_asked_in_russian(tmp_path: Path) -> None:
    root = write_hub_copy("mmbench_ru", tmp_path / "MMBench-ru", n=3)
    assert (root / "mmbench_ru_dev.parquet").exists()
    (task,) = resolve_tasks([f"mmbench_ru:{root}"])
    first = next(iter(task.iter_samples()))
    assert first.input.startswith("Подсказка: Подсказка\nВопрос: Какой цвет?\nВарианты:\nA. красный\n")
    assert first.choices == ("красный", "синий", "зелёный")  # the 'nan' option D is no option


def test_duplicate_index_is_an_error_naming_both_rows(tmp_path: Path) -> None:
    from omnieval.errors import SourceError

    root = write_hub_copy("mmbench", tmp_path / "MMBench", n=4, edit=lambda i, row: row | {"index": 7})
    (task,) = resolve_tasks([f"mmbench:{root}"])
    with pytest.raises(SourceError, match=r"duplicate sample id '7' at dev-00000-of-00001.parquet row 0 and"):
        task.scan_ids()


def test_every_letter_combination_matches_the_original() -> None:
    letters = ["A", "B", "C", "D", "Z", "x"]
    for combo in itertools.product(letters, repeat=3):
        response = " ".join(combo)
        assert infer_choice(response, OPTIONS) == (can_infer(response, dict(OPTIONS)) or None), response


def test_strict_reads_answer_is_only_for_a_capital_letter() -> None:
    assert infer_choice("I guess the answer is a red square", OPTIONS) == "A"  # the quirk, kept by default
    assert infer_choice("I guess the answer is a red square", OPTIONS, strict=True) == "A"  # its option text
    assert infer_choice("Well, the answer is a dog, obviously not a cat", {"A": "x", "B": "y"}) == "A"
    assert (
        infer_choice("Well, the answer is a dog, obviously not a cat", {"A": "x", "B": "y"}, strict=True)
        is None
    )
    assert infer_choice("Hmm... well, the answer is B, I am sure of it now", OPTIONS, strict=True) == "B"
    (task,) = resolve_tasks(
        [f"mmstar:{write_hub_copy('mmstar', Path(tempfile.mkdtemp()) / 'c', n=1)}"], strict_metrics=True
    )
    assert task.spec.parser.name == "vlmeval.mcq_rule_strict"
