"""Judge output parser on real-looking outputs, rationale rule, prompt templates, critical gate."""

from __future__ import annotations

import pytest

from omnieval.benchmarks.pollux.matcher import match_criteria
from omnieval.benchmarks.pollux.parser import parse_judge_output
from omnieval.benchmarks.pollux.prompts import NoReference, build_judge_prompt, critical_gate
from omnieval.benchmarks.pollux.rationale import rationale_problem
from omnieval.benchmarks.pollux.taxonomy import criteria_taxonomy
from omnieval.parsers import parsers
from omnieval.types import Sample

CANONICAL = (
    "[FEEDBACK] Ответ соответствует всем требованиям запроса: текст разбит на три абзаца, "
    "как просил пользователь, и сохраняет тон оригинала. [RESULT] 2 [END]"
)


def parse(text: str, low: int = 0, high: int = 2, **kw: object):  # type: ignore[no-untyped-def]
    return parse_judge_output(text, min_score=low, max_score=high, **kw)  # type: ignore[arg-type]


def test_canonical_output() -> None:
    out = parse(CANONICAL)
    assert out.ok and out.how == "strict"
    assert out.value == {
        "score": 2,
        "feedback": CANONICAL.split("[RESULT]")[0].removeprefix("[FEEDBACK]").strip(),
    }


@pytest.mark.parametrize(
    ("text", "score", "how"),
    [
        ("[FEEDBACK] Есть две орфографические ошибки. [RESULT] 0", 0, "tolerant:no_end"),
        ("[Feedback]: В тексте одна ошибка.\n[Result]: 1\n[End]", 1, "strict"),
        ("[FEEDBACK] Повторов нет.\n\n[RESULT] **2** [END]", 2, "strict"),
        ("Ответ частично полезен, но не хватает примеров.\n[RESULT] 1 [END]", 1, "tolerant:no_feedback_tag"),
        ("[FEEDBACK] Рассуждение. [RESULT] 1 ... уточнение [RESULT] 2 [END]", 2, "tolerant:several_results"),
        ("[FEEDBACK] Цензор не сработал. [РЕЗУЛЬТАТ] 0 [END]", 0, "strict"),
        ("[FEEDBACK] Всё верно. [RESULT] 2.0 [END]", 2, "strict"),
    ],
)
def test_tolerant_variants(text: str, score: int, how: str) -> None:
    out = parse(text)
    assert out.ok, out
    assert out.value["score"] == score and out.how == how


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[FEEDBACK] The answer is good. Score: 5 [RESULT] 5 [END]", "outside the criterion scale 0..2"),
        ("[FEEDBACK] Плохо. [RESULT] -1 [END]", "outside the criterion scale"),
        ("[FEEDBACK] Средне. [RESULT] 1.5 [END]", "not an integer"),
        ("Оценка: 2", "no [RESULT] tag"),
        ("[FEEDBACK] Хорошо. [RESULT] [END]", "no score after [RESULT]"),
    ],
)
def test_failures_are_values_never_clipped(text: str, reason: str) -> None:
    out = parse(text)
    assert not out.ok and reason in out.reason  # type: ignore[union-attr]


def test_scale_bounds_per_variant() -> None:
    assert parse("[FEEDBACK] Все расчёты приведены. [RESULT] 3 [END]", 0, 3).ok  # Sufficiency 0–3
    assert not parse("[FEEDBACK] Все расчёты приведены. [RESULT] 3 [END]", 0, 2).ok


def test_feedback_language_check() -> None:
    english = "[FEEDBACK] The response has two errors. [RESULT] 0 [END]"
    for out in (parse(english), parse(english, check_feedback=True)):  # wrong language: failed by default
        assert not out.ok and out.reason == "feedback: rationale is not in Russian"  # type: ignore[union-attr]
    assert parse(english, check_language=False).ok
    # the judge's own words count: quoted source text and code are not "the wrong language"
    quoted = (
        '[FEEDBACK] Фраза "The quick brown fox jumps over the lazy dog near the river bank" '
        "переведена точно. [RESULT] 2 [END]"
    )
    assert parse(quoted).ok
    assert parse(
        "[FEEDBACK] Функция `def add(first_value, second_value): return first_value + second_value` "
        "верна. [RESULT] 2 [END]"
    ).ok
    assert parse("[RESULT] 1 [END]").ok  # no feedback words (a regression judge): no language to check
    assert not parse("[FEEDBACK] Плохо. [RESULT] 0 [END]", check_feedback=True).ok  # one word, not perfect
    assert parse("[FEEDBACK] Отлично. [RESULT] 2 [END]", check_feedback=True).ok  # one word, perfect


def test_registered_parser_reads_bounds_from_metadata() -> None:
    fn = parsers.get("pollux_judge")
    sample = Sample(id="1", metadata={"pollux_criterion": {"min": 0, "max": 1, "higher_is_better": False}})
    assert fn("[FEEDBACK] Нарушений нет. [RESULT] 0 [END]", sample).ok
    assert not fn("[FEEDBACK] Нарушений нет. [RESULT] 2 [END]", sample).ok
    assert not fn("[RESULT] 1", Sample(id="2")).ok  # no bounds: a failure, not a guess
    english = fn("[FEEDBACK] No violations. [RESULT] 0 [END]", sample)  # the judge-core path checks it too
    assert not english.ok and "not in Russian" in english.reason  # type: ignore[union-attr]
    assert fn("[FEEDBACK] No violations. [RESULT] 0 [END]", sample, check_language=False).ok


@pytest.mark.parametrize(
    ("text", "score", "perfect", "problem"),
    [
        ("Хорошо", 2, 2, None),
        ("Хорошо", 1, 2, "one-word rationale for a non-perfect score"),
        ("Нарушений нет", 0, 0, None),
        ("–", 0, 0, "empty rationale"),
        ("The text is fine overall", 2, 2, "rationale is not in Russian"),
        ("Текст в целом хороший, но есть typo", 1, 2, None),
    ],
)
def test_rationale_rule(text: str, score: int, perfect: int, problem: str | None) -> None:
    assert rationale_problem(text, score=score, perfect=perfect) == problem


def test_russian_template_slots_and_missing_reference() -> None:
    crit = criteria_taxonomy().get("literacy@universal")
    text = build_judge_prompt(instruction="Исправь ошибки.", answer="Исправлено.", criterion=crit)
    assert text.startswith("### Задание для оценки:\nИсправь ошибки.")
    assert "### Эталонный ответ:" not in text  # omitted by default
    assert "### Критерий оценки:\nГрамотность" in text and "2: No errors." in text
    kept = build_judge_prompt(instruction="И", answer="О", criterion=crit, missing_reference="placeholder")
    assert "### Эталонный ответ:\nЭталонный ответ отсутствует." in kept
    with_ref = build_judge_prompt(instruction="И", answer="О", criterion=crit, reference="Эталон")
    assert with_ref.index("### Эталонный ответ:\nЭталон") < with_ref.index("### Ответ для оценки:")


def test_english_template_and_reference_requirement() -> None:
    crit = next(v for v in criteria_taxonomy().variants if v.requires_reference)
    with pytest.raises(NoReference):
        build_judge_prompt(instruction="2+2?", answer="4", criterion=crit, template="en")
    text = build_judge_prompt(instruction="2+2?", answer="4", criterion=crit, reference="4", template="en")
    assert text.startswith("### Task Description:") and "Write [END] after you are done." in text
    assert "### Score name\nCorrectness of results" in text and "### Reference answer:\n4" in text


def test_critical_gate() -> None:
    variants = match_criteria(task_type="Editing")
    judge, gated = critical_gate(variants, {"critical_format@universal": 0, "critical_censor@universal": 1})
    assert judge == [] and len(gated) == len(variants) - 2
    judge, gated = critical_gate(variants, {"critical_format@universal": 0, "critical_censor@universal": 0})
    assert len(judge) == len(variants) - 2 and gated == []
