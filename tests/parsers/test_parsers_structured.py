"""json, python_literal, regex and answer_string on messy real-world answers."""

from __future__ import annotations

import time

import pytest

from omnieval.errors import ParseError
from omnieval.parsers import parsers
from omnieval.types import Parsed, ParseFailure, Sample

S = Sample(id="s1")


def parse(name: str, text: str, **options: object) -> Parsed | ParseFailure:
    return parsers.get(name)(text, S, **options)


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        ('{"intent": "alarm", "slots": []}', {"intent": "alarm", "slots": []}, "text:json"),
        ('Вот ответ:\n```json\n{"город": "Москва"}\n```\nГотово.', {"город": "Москва"}, "fence:json"),
        ('draft {"a": 1} then final {"a": 2}', {"a": 2}, "text:json"),
        ("{'a': 'it''s', 'b': True, 'c': None}", {"a": "its", "b": True, "c": None}, "text:python"),
        ('{"a": [1, 2,], "b": 3,}', {"a": [1, 2], "b": 3}, "text:repaired"),
        ("{'a': true, 'b': null}", {"a": True, "b": None}, "text:python"),
        ("{'a': 'true story', 'b': None}", {"a": "true story", "b": None}, "text:python"),
        ('{"outer": "{\\"inner\\": 5}"}', {"outer": {"inner": 5}}, "text:json"),
        ('Ответ: {"text": "скобка } в строке"}', {"text": "скобка } в строке"}, "text:json"),
        ('{not json} and {"ok": 1}', {"ok": 1}, "text:json"),
    ],
)
def test_json_tolerant(text: str, value: object, how: str) -> None:
    out = parse("json", text)
    assert isinstance(out, Parsed), out
    assert (out.value, out.how) == (value, how)


def test_json_want_array_and_failures() -> None:
    assert parse("json", 'list: [1, "два", 3]', want="array") == Parsed(value=[1, "два", 3], how="text:json")
    assert isinstance(parse("json", "[1, 2]"), ParseFailure)  # default wants an object
    assert isinstance(parse("json", "нет тут JSON"), ParseFailure)
    assert isinstance(parse("json", ""), ParseFailure)
    with pytest.raises(ParseError, match="want"):
        parse("json", "{}", want="dict")


def test_json_is_bounded_on_pathological_input() -> None:
    started = time.perf_counter()
    assert isinstance(parse("json", "[" * 200_000), ParseFailure)
    assert isinstance(parse("json", "{" * 50_000 + "}" * 50_000), ParseFailure)
    many = "{a} " * 100_000 + '{"last": true}'
    assert parse("json", many) == Parsed(value={"last": True}, how="text:json")
    assert time.perf_counter() - started < 5.0


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        ("[1, 2, 3]", [1, 2, 3], "whole"),
        ("```python\n{'a': (1, 2)}\n```", {"a": (1, 2)}, "fence:whole"),
        ("Ответ: ['кот', 'пёс']", ["кот", "пёс"], "span"),
        ("'строка'", "строка", "whole"),
        ("-3.5", -3.5, "whole"),
    ],
)
def test_python_literal(text: str, value: object, how: str) -> None:
    assert parse("python_literal", text) == Parsed(value=value, how=how)


def test_python_literal_limits() -> None:
    assert "over the 10 limit" in parse("python_literal", "[" + "1," * 20 + "]", max_chars=10).reason  # type: ignore[union-attr]
    assert "nests deeper" in parse("python_literal", "[" * 500 + "]" * 500).reason  # type: ignore[union-attr]
    assert parse("python_literal", "__import__('os')") == Parsed(value="os", how="span")  # read, never run
    assert isinstance(parse("python_literal", "9" * 10_000, max_chars=20_000), ParseFailure)


def test_regex_parser() -> None:
    assert parse("regex", "id=12; id=34", pattern=r"id=(\d+)", group=1) == Parsed(
        value="34", how="regex:last"
    )
    assert (
        parse("regex", "id=12; id=34", pattern=r"id=(?P<n>\d+)", group="n", occurrence="first").value == "12"
    )  # type: ignore[union-attr]
    assert parse("regex", "ОТВЕТ: да", pattern=r"ответ:\s*(\w+)", group=1, flags="i").value == "да"  # type: ignore[union-attr]
    assert isinstance(parse("regex", "nothing", pattern=r"\d+"), ParseFailure)
    assert isinstance(parse("regex", "b", pattern=r"(a)?b", group=1), ParseFailure)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pattern": r"(a+)+$"}, "nests quantifiers"),
        ({"pattern": r"(.*)*"}, "nests quantifiers"),
        ({"pattern": r"(unclosed"}, "does not compile"),
        ({"pattern": r"a", "flags": "q"}, "unknown flag"),
        ({"pattern": r"a", "group": 3}, "no group 3"),
        ({"pattern": r"a", "occurrence": "middle"}, "occurrence"),
    ],
)
def test_regex_parser_misconfiguration(options: dict[str, object], message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse("regex", "aaaa", **options)


def test_regex_parser_bounds_input() -> None:
    started = time.perf_counter()
    out = parse("regex", "a" * 1_000_000 + "!", pattern=r"(a|aa)*c", max_chars=5_000)
    assert isinstance(out, ParseFailure)
    assert time.perf_counter() - started < 3.0


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        ("Reasoning...\nAnswer: Paris", "Paris", "marker"),
        ("answer: first\nAnswer: second", "second", "marker"),
        ("**Answer:** (B)", "(B)", "marker"),
        ("**Answer: 42** because reasons", "42", "marker"),
        ("Ответ: Москва", "Москва", "marker"),
        ("Answer:\n```python\nprint(1)\n```", "print(1)", "marker:fence"),
        ("Answer: 5\n\n```python\nprint(5)\n```", "5\n\n```python\nprint(5)\n```", "marker"),
        ("```\n[1, 2]\n```", "[1, 2]", "whole:fence"),
        ("  just text  ", "just text", "whole"),
    ],
)
def test_answer_string(text: str, value: str, how: str) -> None:
    assert parse("answer_string", text) == Parsed(value=value, how=how)


def test_answer_string_can_require_marker() -> None:
    assert isinstance(parse("answer_string", "Paris", require_marker=True), ParseFailure)


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        ('```json\n{"a": 1}\n```\nlater: {"a": 2}', {"a": 2}, "text:json"),  # the last valid one wins
        ('{"a": 2}\n```json\n{"a": 3}\n```', {"a": 3}, "fence:json"),
        ('{it\'s prose} then {"a": 1}', {"a": 1}, "text:json"),  # an apostrophe is no string quote
        ('{unclosed "quote} and {"b": 2}', {"b": 2}, "text:json"),  # an unclosed span is rescanned
    ],
)
def test_json_last_wins_and_prose_braces(text: str, value: object, how: str) -> None:
    assert parse("json", text) == Parsed(value=value, how=how)
