"""Property: no library parser raises on arbitrary text; each returns Parsed (with ``how``) or
ParseFailure."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from omnieval.parsers import parsers
from omnieval.types import Parsed, ParseFailure, Sample

SAMPLE = Sample(id="p", choices=("Москва", "Париж", "Лондон"))
CALLS: list[tuple[str, dict[str, object]]] = [
    ("strip", {}),
    ("answer_marker", {}),
    ("mc_letter", {}),
    ("mc_letter", {"strict": True}),
    ("number", {}),
    ("json", {"want": "any"}),
    ("python_literal", {}),
    ("regex", {"pattern": r"(\d+)", "group": 1}),
    ("answer_string", {}),
]
PIECES = st.sampled_from(
    [
        *list("{}[]()'\"`:,ABCабв0123456789 \n\\*"),
        "```json\n",
        "```",
        "Answer:",
        "ОТВЕТ:",
        "\\boxed{",
        "true",
        "None",
    ]
)
TEXTS = st.one_of(st.text(max_size=300), st.lists(PIECES, max_size=80).map("".join))


@settings(max_examples=200, deadline=None)
@given(text=TEXTS)
def test_parsers_never_raise(text: str) -> None:
    for name, options in CALLS:
        out = parsers.get(name)(text, SAMPLE, **options)
        assert isinstance(out, Parsed | ParseFailure), name
        if isinstance(out, Parsed):
            assert out.how, name
        else:
            assert out.reason, name
