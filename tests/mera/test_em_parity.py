"""MERA EM: parity with MERA's compute_exact (SQuAD normalisation), strict fix, named leniencies.

Golden values are worked by hand below; the property test checks the normaliser against a second,
independently written one (character walk instead of regular expressions).
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omnieval.benchmarks.mera.em import Leniency, mera_exact, squad_normalize
from omnieval.benchmarks.mera.importer import import_mera, split_leniency
from omnieval.benchmarks.mera.mini import make_mini
from omnieval.errors import TaskFileError
from omnieval.metrics import bind_metric
from omnieval.runner.resolve import strict_variant

PARITY = [
    ("A", "", 1.0),  # quirk: gold A is an article → "" and the empty answer → "": equal
    ("A", "ОТВЕТ:", 1.0),  # the text after the marker is empty: same quirk
    ("A", "The", 1.0),  # "the" is an article too
    ("B", "", 0.0),
    ("A", "A.", 1.0),
    ("The Eiffel Tower", "eiffel   tower!", 1.0),
    ("кот", "the кот", 1.0),
    ("Санкт-Петербург", "Санкт Петербург", 0.0),  # ASCII '-' is deleted, not spaced: санктпетербург
    ("ёлка", "елка", 0.0),
    ("«да»", "да", 0.0),  # « » are not ASCII punctuation
    ("ＡＢ", "ab", 0.0),  # full-width letters stay different without NFKC
    ("Б", "B", 0.0),  # no alphabet twins in MERA's own scorer
    ("42", "РАССУЖДЕНИЕ: 6*7. ОТВЕТ: 42", 1.0),  # the paper's ANSWER rule: text after the last ОТВЕТ
    ("42", "Рассуждение: 6*7. Ответ: 42", 0.0),  # the released split is case-sensitive
    ("42", "42 или 43", 0.0),
]


@pytest.mark.parametrize(("gold", "answer", "em"), PARITY)
def test_parity_hand_worked(gold: str, answer: str, em: float) -> None:
    assert mera_exact(answer, [gold], strict=False) == em


@pytest.mark.parametrize(
    ("gold", "answer", "em"),
    [
        ("A", "", 0.0),
        ("A", "ОТВЕТ:", 0.0),
        ("A", "The", 0.0),
        ("A", "a.", 1.0),
        ("A", "Ответ: A", 1.0),
        ("The Eiffel Tower", "eiffel tower", 1.0),
        ("B", "", 0.0),
    ],
)
def test_strict_keeps_letters_and_never_matches_empty(gold: str, answer: str, em: float) -> None:
    assert mera_exact(answer, [gold], strict=True) == em


@pytest.mark.parametrize(
    ("option", "gold", "answer"),
    [
        ("fold_yo", "ёлка", "елка"),
        ("unicode_punctuation", "«да»", "да"),
        ("nfkc", "ＡＢ", "ab"),
        ("letter_twins", "Б", "B"),
    ],
)
def test_each_leniency_is_named_and_off_by_default(option: str, gold: str, answer: str) -> None:
    targets = [gold, {"Б": "B"}.get(gold, gold)]  # the importer adds the twin as a second target
    assert mera_exact(answer, targets, strict=False) == 0.0
    assert mera_exact(answer, targets, strict=False, lenient=Leniency(**{option: True})) == 1.0


def _second_normalizer(text: str) -> str:
    """SQuAD normalisation written independently: character walk, no regular expressions."""
    lowered = "".join(ch for ch in text.lower() if ch not in string.punctuation)
    out, word = [], []
    for ch in [*lowered, " "]:
        if ch.isalnum() or ch == "_":
            word.append(ch)
            continue
        token = "".join(word)
        out.append(" " if token in ("a", "an", "the") else token)
        word = []
        out.append(ch)
    return " ".join("".join(out).split())


PIECES = st.sampled_from(
    [
        "a",
        "an",
        "the",
        "The",
        "A",
        "ан",
        "кот",
        "Ёж",
        "x_the",
        "theme",
        "-",
        ",",
        ".",
        "«",
        "»",
        " ",
        "  ",
        "\t",
        "!",
        "'",
        "_",
        "1",
        "é",
        "ＡＢ",
        "$",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_normaliser_agrees_with_an_independent_one(text: str) -> None:
    assert squad_normalize(text) == _second_normalizer(text)


def test_strict_metrics_swap_keeps_result_keys(tmp_path: Path) -> None:
    make_mini(tmp_path, n=2, tasks=["ruhhh_image"])
    [task] = import_mera(str(tmp_path / "ruHHH-Image"))
    parity = [(m.key, m.name) for m in task.spec.metrics]
    assert parity == [("em", "mera_em"), ("group_em", "mera_em"), ("fs", "mera_fs")]
    strict = [(m.key, m.name) for m in strict_variant(task).spec.metrics]
    assert strict == [("em", "mera_em_strict"), ("group_em", "mera_em_strict"), ("fs", "mera_fs_strict")]
    assert task.spec.metadata["exact_match"]["leniencies"] == {
        "fold_yo": False,
        "nfkc": False,
        "unicode_punctuation": False,
        "letter_twins": False,
    }


def test_leniencies_are_chosen_on_the_importer_and_reported(tmp_path: Path) -> None:
    make_mini(tmp_path, n=2, tasks=["weird"])
    [task] = import_mera(f"{tmp_path / 'WEIRD'}?lenient=fold_yo,letter_twins")
    em = bind_metric(task.spec.metrics[0])
    assert em.ref.options == {"fold_yo": True, "letter_twins": True}
    assert task.spec.metadata["exact_match"]["leniencies"]["letter_twins"] is True
    assert split_leniency("R?lenient=all")[1] == Leniency(True, True, True, True)
    with pytest.raises(TaskFileError, match=r"unknown leniency.*fold_yo"):
        split_leniency("R?lenient=yo")


def test_empty_answer_on_an_a_gold_question_through_the_scorer() -> None:
    from omnieval.runner.scoring import Scorer
    from omnieval.sources import Task
    from omnieval.types import Response, Sample

    from .conftest import task_spec_of

    spec = task_spec_of("weird")
    sample = Sample(id="1", input="q", targets=("A", "А"))
    parity = Scorer.for_task(spec).score(sample, Response.from_text(""))
    assert parity.state == "ok" and parity.metrics == {"em": 1.0, "fs": 1.0}  # MERA's own quirk, kept
    strict = Scorer.for_task(strict_variant(Task.from_samples(spec, [sample])).spec)
    assert strict.score(sample, Response.from_text("")).metrics == {"em": 0.0, "fs": 0.0}
    assert strict.score(sample, Response.from_text("Ответ: A")).metrics == {"em": 1.0, "fs": 1.0}
