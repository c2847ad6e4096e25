"""Our linear-time scanners give exactly what the original's (sometimes exponential) regexes give."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from omnieval.benchmarks.megabench.metrics._convert import _bracket_candidates, fenced_block
from omnieval.benchmarks.megabench.metrics._numeric import _boxed
from omnieval.parsers.mega.answer import _answer_span

FENCE = re.compile(r"```\w*\s*\n*(.*?)\s*```", re.DOTALL)
FENCE_ASCII = re.compile(r"```\w*(?:\s*\n+)?(.*?)\s*```", re.DOTALL)
FENCE_VERBATIM = re.compile(r"```\w*(?:\s*\n+)?(.*?)(?:\n+\s*)?```", re.DOTALL)
FENCE_JSON = re.compile(r"```json\s*\n*(.*?)\s*```", re.DOTALL)
ANSWER = re.compile(r"\*\*?Answer:\s*(.*?)\*\*?|\bAnswer:\s*(.*)", re.DOTALL)
ANSWER_ASCII = re.compile(r"\*\*?Answer:(.*?)\*\*?|\bAnswer:(.*)", re.DOTALL)
BOXED = re.compile(r"\\boxed\{((?:[^{}]+|\{[^{}]*\})*)\}")

pieces = st.lists(
    st.sampled_from(["```", "`", "json", "a", " ", "\n", "*", "**", "Answer:", "x", "\t"]), max_size=12
)


def _expected(pattern: re.Pattern[str], text: str, *, strip: bool) -> tuple[str, bool]:
    match = pattern.search(text)
    if not match:
        return text, False
    return (match.group(1).strip() if strip else match.group(1)), True


@settings(max_examples=400, deadline=None)
@given(parts=pieces)
def test_fenced_block_matches_the_regexes(parts: list[str]) -> None:
    text = "".join(parts)
    assert fenced_block(text) == _expected(FENCE, text, strip=True)
    assert fenced_block(text, keep_spacing=True) == _expected(FENCE_ASCII, text, strip=False)
    assert fenced_block(text, keep_spacing=True, trim=False) == _expected(FENCE_VERBATIM, text, strip=False)
    assert fenced_block(text, code_type="json") == _expected(FENCE_JSON, text, strip=True)


@settings(max_examples=400, deadline=None)
@given(parts=pieces)
def test_answer_span_matches_the_regex(parts: list[str]) -> None:
    text = "".join(parts)
    for pattern, skip in ((ANSWER, True), (ANSWER_ASCII, False)):
        match = pattern.search(text)
        expected = (match.group(1) or match.group(2) or "") if match else None
        got = _answer_span(text, skip_space=skip)
        assert (got or "") == (expected or "") and (got is None) == (match is None)


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(st.sampled_from(["\\boxed{", "{", "}", "a", "1"]), max_size=10))
def test_boxed_matches_the_regex(parts: list[str]) -> None:
    text = "".join(parts)
    match = BOXED.search(text)
    assert _boxed(text) == (match.group(1) if match else text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="{}[]a, ", max_size=14))
def test_json_candidates_match_the_recursive_regex(text: str) -> None:
    import regex

    assert _bracket_candidates(text) == regex.findall(r"(\{(?:[^{}]|(?R))*\}|\[(?:[^{}]|(?R))*\])", text)
