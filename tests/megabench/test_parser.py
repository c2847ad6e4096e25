"""The ``megabench`` parser on messy real-world answer shapes."""

from __future__ import annotations

from typing import Any

import pytest

from omnieval.benchmarks.megabench.metrics._convert import parse_json
from omnieval.benchmarks.megabench.parser import parse_megabench
from omnieval.errors import ParseError
from omnieval.types import Sample


def _sample(gold: dict[str, Any], mode: str) -> Sample:
    info = {"field_score_function": dict.fromkeys(gold, "exact_str_match"), "response_parse_function": mode}
    return Sample(id="s1", targets=(gold,), metadata={"metric_info": info, "eval_context": {}})


def _parse(text: str, gold: dict[str, Any], mode: str = "answer_string", **kw: Any) -> Any:
    out = parse_megabench(text, _sample(gold, mode), **kw)
    assert out.ok
    return out.value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Let me think.\nAnswer: B", "B"),
        ("answer: first\nmore text\nAnswer: C", "C"),  # the last marker wins
        ("**Answer: D**", "D"),
        ("**Answer:** E", ""),  # parity quirk: the bold marker alone yields nothing
        ("ANSWER: F", "ANSWER: F"),  # upper case is not a marker
        ("Answer: ```\nG\n```", "G"),
        ("Answer: (H)\n\nBecause the second option is right.", "(H)"),  # first-paragraph rule
        ("Answer: 'quoted'", "quoted"),
        ("Answer: [1, 2,3]", "[1, 2, 3]"),  # structures are re-serialised with str()
        ("Ответ: Москва", "Ответ: Москва"),
    ],
)
def test_answer_string_shapes(text: str, expected: str) -> None:
    assert _parse(text, {"answer": "x"}) == {"answer": expected}


def test_strict_mode_accepts_bold_and_upper_case_markers() -> None:
    assert _parse("**Answer:** E", {"answer": "x"}, strict=True) == {"answer": "E"}
    assert _parse("ANSWER: F", {"answer": "x"}, strict=True) == {"answer": "F"}


def test_multiline_gold_keeps_everything_after_the_marker() -> None:
    assert _parse("Answer: line1\n\nline2", {"answer": "a\nb"}) == {"answer": "line1\n\nline2"}


def test_verbatim_keeps_leading_spaces() -> None:
    art = "Answer:  /\\\n /  \\\n"
    assert _parse(art, {"art": "x"}, "verbatim_answer_string") == {"art": "  /\\\n /  \\"}


def test_json_mode_last_valid_object_wins_and_fallback() -> None:
    gold = {"name": "x", "year": "y"}
    parsed = parse_megabench(
        'Draft {"name": "A"} final: {"name": "Eiffel", "year": 1889}', _sample(gold, "json")
    )
    assert parsed.value == {"name": "Eiffel", "year": 1889} and parsed.how == "json"
    fallback = parse_megabench("no structure here", _sample(gold, "json"))
    assert fallback.ok and fallback.how == "fallback:raw_response"
    assert fallback.value == {"name": "no structure here", "year": "no structure here"}


def test_json_quote_repair_and_nested_strings() -> None:
    assert parse_json("{'a': 'it', 'b': [1, 2]}") == {"a": "it", "b": [1, 2]}
    assert parse_json('{"outer": "{\\"inner\\": 1}"}') == {"outer": {"inner": 1}}
    assert parse_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json("nothing") == {} and parse_json("[broken") == []


def test_dummy_returns_the_whole_text() -> None:
    assert _parse("  a poem\n", {"##poem": ""}, "dummy") == "a poem"


def test_bad_configuration_is_a_clear_error() -> None:
    with pytest.raises(ParseError, match="exactly one answer field"):
        parse_megabench("Answer: x", _sample({"a": "1", "b": "2"}, "answer_string"))
    with pytest.raises(ParseError, match="unknown MEGA-Bench response_parse_function"):
        parse_megabench("x", _sample({"a": "1"}, "odd_one_out"))
