"""MEGA-Bench Open tasks: the judge prompt from a task's own criteria, and Open / Overall scoring on
hand-worked cases (judge score N → field score N/10, fields aggregated with the task's weights)."""

from __future__ import annotations

import pytest

from omnieval.benchmarks.megabench.judge import (
    SCORE_FORMAT,
    fill_criteria,
    judge_media,
    judge_prompt,
    judged_fields,
    query_media,
)
from omnieval.benchmarks.megabench.judge_protocol import megabench_ascii_art, megabench_open
from omnieval.benchmarks.megabench.metrics.query import score_query
from omnieval.benchmarks.megabench.scheme import megabench_board
from omnieval.errors import MetricError
from omnieval.judges import JudgeInput, get_judge_template
from omnieval.prompts.render import place_media
from omnieval.prompts.templates import render_template
from omnieval.types import ImagePart, MediaRef, Sample, TextPart, VideoPart

CRITERIA = (
    "Evaluate the video summary against the reference.\n"
    "Scores 1-3: misses the main event; 4-7: main event, missing details; 8-10: complete and faithful.\n"
    "Question: {question}\nReference: {ref}\nModel Response: {resp}\nRequired length: {length}\n"
)
CONFIG = {
    "judge_model_type": "with image",
    "eval_criteria_prompt": CRITERIA,
    "reference_type": "reference",
    "template_mapping": {
        "question": "example_question",
        "ref": "answers.reference",
        "resp": "model_output",
        "length": "eval_context.length",
    },
}
INFO = {
    "field_score_function": {"reference": "gpt_4o_as_judge"},
    "aggregation": {"function": "mean", "field_weights": {"reference": 1}},
    "response_parse_function": "answer_string",
    "gpt4o_eval_configs": CONFIG,
}


def _media(kind: str, name: str) -> MediaRef:
    return MediaRef(kind=kind, name=name, path=f"/data/{name}")  # type: ignore[arg-type]


def _sample(info: dict[str, object] = INFO) -> Sample:
    media = (
        _media("image", "global"),
        _media("image", "demo"),
        _media("video", "query_video"),
        _media("image", "query_image"),
    )
    return Sample(
        id="q7",
        input="Summarise the video <video> and the frame <image>.",
        fields={"query_text": "Summarise the video <video> and the frame <image>."},
        targets=({"reference": "A dog catches a frisbee."},),
        media=media,
        metadata={
            "metric_info": info,
            "eval_context": {"length": "one sentence"},
            "megabench_media_counts": [1, 1, 2],
        },
    )


def test_criteria_placeholders_are_filled_from_their_sources() -> None:
    text = fill_criteria(
        CONFIG,
        response="The dog jumps.",
        question="Q?",
        reference={"reference": "R."},
        context={"length": "short"},
    )
    assert "Question: Q?\nReference: R.\nModel Response: The dog jumps.\nRequired length: short" in text
    assert text.endswith(SCORE_FORMAT)  # the task's criteria do not say how to answer: ours is appended


def test_score_format_not_appended_when_the_criteria_have_one() -> None:
    config = {
        **CONFIG,
        "eval_criteria_prompt": CRITERIA + "Answer as:\n**Score**: <1-10>\n**Score explanation**: <why>",
    }
    text = fill_criteria(
        config, response="r", question="q", reference={"reference": "R"}, context={"length": "x"}
    )
    assert SCORE_FORMAT not in text and text.count("**Score**") == 1


def _judge_message(
    sample: Sample,
    answer: str,
    protocol: object = megabench_open,
    template: str = "megabench_open",
    **options: object,
) -> object:
    """What the judge stage sends: the protocol's call rendered with the template, media placed."""
    plan = protocol(JudgeInput(sample, "rendered prompt", answer, ()), **options)  # type: ignore[operator]
    (call,) = plan.calls
    text = render_template(get_judge_template(template).user, **call.variables)
    return place_media(text, call.media, blind=False)


def test_judge_message_with_query_media_only() -> None:
    parts = _judge_message(_sample(), "Some reasoning.\nAnswer: A dog plays.")
    assert [type(p) for p in parts] == [VideoPart, ImagePart, TextPart]  # type: ignore[union-attr]
    assert [p.media.name for p in parts[:2]] == ["query_video", "query_image"]  # type: ignore[index]
    text = parts[-1].text  # type: ignore[index]
    assert "Model Response: A dog plays." in text  # the parsed field value, as the original judge sees it
    assert "Question: Summarise the video <video>" in text and "Reference: A dog catches a frisbee." in text


def test_judge_message_text_only_and_overrides() -> None:
    text_only = {**INFO, "gpt4o_eval_configs": {**CONFIG, "judge_model_type": "text only"}}
    assert isinstance(_judge_message(_sample(text_only), "Answer: r"), str)
    assert len(judge_media(_sample(text_only), media="always")) == 2
    assert judge_media(_sample(), media="never") == ()
    assert isinstance(_judge_message(_sample(), "Answer: r", media="never"), str)
    assert [m.name for m in query_media(_sample())] == ["query_video", "query_image"]
    assert judge_prompt(_sample(), "X").endswith(SCORE_FORMAT)


@pytest.mark.parametrize(
    ("mapping", "why"),
    [
        (
            {
                "question": "example_question",
                "ref": "answers.missing",
                "resp": "model_output",
                "length": "eval_context.length",
            },
            "no 'missing' in answers",
        ),
        (
            {"question": "example_question", "ref": "answers.reference", "resp": "model_output"},
            "placeholder(s) ['length']",
        ),
        (
            {
                "question": "the_question",
                "ref": "answers.reference",
                "resp": "model_output",
                "length": "eval_context.length",
            },
            "is not model_output",
        ),
    ],
)
def test_broken_judge_config_is_a_clear_error(mapping: dict[str, str], why: str) -> None:
    info = {**INFO, "gpt4o_eval_configs": {**CONFIG, "template_mapping": mapping}}
    with pytest.raises(
        MetricError, match=why.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")
    ):
        judge_prompt(_sample(info), "r")


@pytest.mark.parametrize(
    "criteria", ['Output JSON like {"score": 1} {resp}', "Rate {resp} {", "Rate {} {resp}"]
)
def test_criteria_that_are_not_format_strings_fail_clearly(criteria: str) -> None:
    config = {**CONFIG, "eval_criteria_prompt": criteria}
    with pytest.raises(MetricError, match="eval_criteria_prompt"):
        fill_criteria(
            config, response="r", question="q", reference={"reference": "R"}, context={"length": "x"}
        )


def test_missing_judge_config_names_the_sample() -> None:
    info = {k: v for k, v in INFO.items() if k != "gpt4o_eval_configs"}
    with pytest.raises(MetricError, match="sample q7: metric_info has no 'gpt4o_eval_configs'"):
        judge_prompt(_sample(info), "r")


# --- scoring, worked by hand -------------------------------------------------------------------


def test_open_task_query_scores_are_verdict_over_ten() -> None:
    gold = {"reference": "A dog catches a frisbee."}
    scores = [
        score_query({"reference": "x"}, gold, INFO, {}, judged={"reference": n / 10})[0] for n in (7, 10, 1)
    ]
    assert scores == pytest.approx([0.7, 1.0, 0.1])
    assert sum(scores) / 3 == pytest.approx(0.6)  # task score: (0.7 + 1.0 + 0.1) / 3


def test_unjudged_open_query_is_not_applicable() -> None:
    query, fields = score_query({"reference": "x"}, {"reference": "R"}, INFO, {})
    assert (query, fields) == (-1.0, {})  # no verdict: the judge field is unscored, never 0


def test_mixed_judge_and_rule_fields_use_the_task_weights() -> None:
    # Scibench-style: an open-ended solution judged, plus a numeric final answer scored by rule
    info = {
        "field_score_function": {"solution": "gpt_4o_as_judge", "answer": "general_single_numerical_match"},
        "aggregation": {"function": "mean", "field_weights": {"solution": 1, "answer": 3}},
        "response_parse_function": "json",
        "gpt4o_eval_configs": CONFIG,
    }
    gold = {"solution": "F = ma = 2 * 3", "answer": "6"}
    query, fields = score_query(
        {"solution": "6 N by Newton", "answer": "6"}, gold, info, {}, judged={"solution": 0.6}
    )
    assert fields == {"answer": 1.0, "solution": 0.6}
    assert query == pytest.approx((1 * 0.6 + 3 * 1.0) / 4)  # 0.9
    query_wrong, _ = score_query({"solution": "?", "answer": "7"}, gold, info, {}, judged={"solution": 0.2})
    assert query_wrong == pytest.approx((1 * 0.2 + 3 * 0.0) / 4)  # 0.05


def test_ascii_art_judge_field_and_min_aggregation() -> None:
    info = {
        "field_score_function": {"art": "ascii_art_gpt4o_judge"},
        "aggregation": {"function": "min", "field_weights": {"art": 1}},
        "response_parse_function": "ascii_answer_string",
    }
    assert judged_fields(info) == {"art": "ascii_art_gpt4o_judge"}
    assert score_query({"art": " /\\_/\\ "}, {"art": " /\\_/\\ "}, info, {}, judged={"art": 1.0})[0] == 1.0
    assert score_query({"art": "x"}, {"art": " /\\_/\\ "}, info, {}, judged={"art": 0.0})[0] == 0.0


def test_judged_metric_scores_the_judge_field_from_the_judge_value() -> None:
    from omnieval.metrics import bind_metric
    from omnieval.types import MetricRef, ScoringInput

    metric = bind_metric(MetricRef(name="megabench.query_score_judged", alias="megabench_score"))
    inp = ScoringInput(
        response="Answer: x",
        prediction={"reference": "x"},
        targets=({"reference": "R"},),
        metadata={"metric_info": INFO},
        judgements={"megabench_judge": 0.7},
    )
    out = metric(inp)
    assert out["megabench_score"] == pytest.approx(0.7) and out["megabench_judged"] == 1.0
    two = {
        **INFO,
        "field_score_function": {"reference": "gpt_4o_as_judge", "other": "gpt_4o_as_judge"},
        "aggregation": {"function": "mean", "field_weights": {"reference": 1, "other": 1}},
    }
    with pytest.raises(MetricError, match="exactly one judge-scored answer field"):
        metric(inp.model_copy(update={"metadata": {"metric_info": two}}))
    with pytest.raises(MetricError, match="no judge value 'megabench_judge'"):
        metric(inp.model_copy(update={"judgements": {}}))


def _block(score: float, n: int, kind: str, cot: bool = False, judged: bool = True) -> dict[str, object]:
    metrics = {"megabench_score": score, "megabench_judged": 1.0 if judged else 0.0}
    return {
        "score": score,
        "n": n,
        "states": {"ok": n},
        "metrics": metrics,
        "metadata": {"megabench": {"set": kind, "cot": cot, "app": "Perception"}},
    }


def test_open_and_overall_as_the_paper_defines() -> None:
    # Core tasks 0.5 and 0.7 (n=15 each) → Core 0.6; Open tasks 0.6 (the worked task above) and 0.9 → Open
    # 0.75
    doc = {
        "model": "m",
        "tasks": {
            "core_a": _block(0.5, 15, "core"),
            "core_b": _block(0.7, 15, "core"),
            "open_a": _block(0.6, 3, "open"),
            "open_b": _block(0.9, 5, "open"),
        },
    }
    row = megabench_board([doc])["rows"][0]
    assert row["core"] == pytest.approx(0.6)
    assert row["open"] == pytest.approx(0.75)
    assert row["overall"] == pytest.approx((2 * 0.6 + 2 * 0.75) / 4)  # task-count weighted: 0.675
    assert row["micro_mean"] == pytest.approx((0.5 * 15 + 0.7 * 15 + 0.6 * 3 + 0.9 * 5) / 38)


def test_an_unjudged_open_task_is_not_computed() -> None:
    doc = {
        "model": "m",
        "tasks": {
            "core_a": _block(0.6, 15, "core"),
            "open_a": _block(0.9, 5, "open"),
            "open_b": _block(0.0, 5, "open", judged=False),
        },
    }
    row = megabench_board([doc])["rows"][0]
    assert row["open"] == pytest.approx(0.9) and row["open_not_computed"] == [
        "open_b"
    ]  # never averaged in as 0
    assert row["overall"] == pytest.approx((0.6 + 0.9) / 2) and row["overall_partial"] is True


def test_full_benchmark_overall_weights() -> None:
    tasks = {f"c{i}": _block(0.5, 1, "core") for i in range(440)} | {
        f"o{i}": _block(0.3, 1, "open") for i in range(65)
    }
    row = megabench_board([{"model": "m", "tasks": tasks}])["rows"][0]
    assert row["full_benchmark"] is True
    assert row["overall"] == pytest.approx((440 * 0.5 + 65 * 0.3) / 505)  # 0.474257...


def test_ascii_art_is_rendered_as_two_square_images_and_a_question() -> None:
    import io

    from PIL import Image

    from omnieval.benchmarks.megabench.ascii_art import ascii_media, render_ascii
    from omnieval.benchmarks.megabench.judge import ASCII_QUESTION

    cat = " /\\_/\\\n( o.o )\n > ^ <"
    image = Image.open(io.BytesIO(render_ascii(cat)))
    assert image.size == (224, 224)
    assert image.convert("L").getextrema()[0] < 64  # something dark was drawn
    assert render_ascii(cat) != render_ascii(cat.replace(" ", ""))  # spacing is part of ASCII art
    assert Image.open(io.BytesIO(render_ascii(""))).size == (224, 224)
    info = {
        "field_score_function": {"art": "ascii_art_gpt4o_judge"},
        "aggregation": {"function": "mean", "field_weights": {"art": 1}},
        "response_parse_function": "ascii_answer_string",
    }
    sample = Sample(id="a1", input="Draw a cat", targets=({"art": cat},), metadata={"metric_info": info})
    parts = _judge_message(sample, "Answer:=^.^=", megabench_ascii_art, "megabench_ascii_art")
    assert [type(p) for p in parts] == [ImagePart, ImagePart, TextPart]  # type: ignore[union-attr]
    assert parts[0].media.data == render_ascii("=^.^=")  # type: ignore[index]
    assert parts[1].media.data == render_ascii(cat)  # type: ignore[index]
    assert parts[2].text == ASCII_QUESTION  # type: ignore[index]
    with pytest.raises(MetricError, match="sample a1: no reference ASCII art"):
        ascii_media(Sample(id="a1", input="x", targets=({},)), "x")
