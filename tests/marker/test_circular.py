"""The ``circular`` transform: rotations, remapped golds, grouping, and the round trip."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omnieval.errors import SourceError
from omnieval.sources import transforms
from omnieval.sources.circular import rotate_target
from omnieval.types import Sample

LABELS = "ABCDE"


def rotate(sample: Sample, **options: object) -> list[Sample]:
    return transforms.get("circular")(sample, **options)


def test_four_options_give_four_rotations() -> None:
    sample = Sample(
        id="q7", input="?", choices=("w", "x", "y", "z"), targets=("C",), metadata={"split": "art"}
    )
    out = rotate(sample)
    assert [s.id for s in out] == ["q7#rot0", "q7#rot1", "q7#rot2", "q7#rot3"]
    assert [s.choices for s in out] == [
        ("w", "x", "y", "z"),
        ("x", "y", "z", "w"),
        ("y", "z", "w", "x"),
        ("z", "w", "x", "y"),
    ]
    # gold "y" moves: C, B, A, D
    assert [s.targets for s in out] == [("C",), ("B",), ("A",), ("D",)]
    assert all(
        s.metadata == {"split": "art", "circular_group": "q7", "rotation": k} for k, s in enumerate(out)
    )
    assert all(s.input == "?" for s in out)


def test_target_shapes_are_kept() -> None:
    sample = Sample(id="q", choices=("a", "b", "c"), targets=("b", 1, "1", "B", "b "))
    out = rotate(sample)
    # the option text stays; index, digit string and letter move with the option
    assert out[1].targets == ("b", 0, "0", "A", "a")
    assert out[2].targets == ("b", 2, "2", "C", "c")


def test_two_options_and_cyrillic_labels() -> None:
    out = rotate(Sample(id="q", choices=("да", "нет"), targets=("Б",)), labels="АБ")
    assert [(s.choices, s.targets) for s in out] == [(("да", "нет"), ("Б",)), (("нет", "да"), ("А",))]


@pytest.mark.parametrize(
    ("sample", "field"),
    [
        (Sample(id="open", targets=("42",)), "choices"),
        (Sample(id="bad", choices=("a", "b"), targets=("Z",)), "targets"),
        (Sample(id="many", choices=tuple("abcdef"), targets=("A",)), "choices"),
    ],
)
def test_errors_name_sample_and_field(sample: Sample, field: str) -> None:
    with pytest.raises(SourceError, match=f"sample '{sample.id}', field '{field}'"):
        rotate(sample, labels=LABELS)


@given(
    # options that are not themselves labels or digits (those read as option texts first, see below)
    options=st.lists(st.text(min_size=2, max_size=5), min_size=2, max_size=5, unique=True),
    gold=st.integers(min_value=0, max_value=4),
)
def test_round_trip(options: list[str], gold: int) -> None:
    gold %= len(options)
    sample = Sample(id="q", choices=tuple(options), targets=(LABELS[gold], gold))
    out = rotate(sample, labels=LABELS)
    assert len(out) == len(options)
    for k, rotated in enumerate(out):
        assert rotated.choices is not None
        letter, index = rotated.targets
        # the gold letter and index still point at the same option text
        assert rotated.choices[LABELS.index(letter)] == options[gold]
        assert rotated.choices[index] == options[gold]
        # undoing the shift restores the original order
        n = len(options)
        assert rotated.choices[(n - k) % n :] + rotated.choices[: (n - k) % n] == tuple(options)
    # every rotation puts the gold answer at a different position
    assert sorted(r.targets[1] for r in out) == list(range(len(options)))


def test_a_target_equal_to_an_option_text_reads_as_that_text() -> None:
    # same rule as the prompt stage's gold answers: an option text wins over a label reading
    out = rotate(Sample(id="q", choices=("0", "B"), targets=("B",)))
    assert [s.targets for s in out] == [("B",), ("B",)]


def test_rotate_target_rejects_bool() -> None:
    with pytest.raises(SourceError):
        rotate_target(True, n=2, k=1, labels=LABELS, choices=("a", "b"), sample_id="s")
