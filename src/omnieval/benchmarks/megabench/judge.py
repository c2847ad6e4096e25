"""MEGA-Bench Open tasks: the 1-10 judge prompt built from a task's own criteria, and its verdict parsers.

Each Open task's ``metric_info["gpt4o_eval_configs"]`` (shipped in the dataset) holds the annotator's
``eval_criteria_prompt`` (a ``str.format`` template), ``template_mapping`` (placeholder →
``model_output`` / ``example_question`` / ``answers.<field>`` / ``eval_context.<key>``) and
``judge_model_type`` (``"with image"`` sends the query media too). The judge sees the *parsed* field
value the rule-based metrics would see, the query text and the gold answer dict, as in the original
evaluator. The paper's Fig. 13 appends a fixed scoring-format instruction; when the task's criteria
already ask for ``Score`` / ``Score explanation`` nothing is appended, otherwise ours is.

The verdict is ``Score: N`` with N in 1-10; the field score is N/10 (so a valid verdict scores at least
0.1). Where the original scores an unparseable verdict 0, it is a :class:`ParseFailure` here (the judge
stage retries, then counts the sample ``judge_failed``); so are non-integer (the original's regex reads
"7.5" as 7), out-of-range and conflicting scores. ``ascii_art_gpt4o_judge`` asks a yes/no question
about two rendered images (:mod:`omnieval.benchmarks.megabench.ascii_art`).
"""

from __future__ import annotations

import re
import string
from typing import Any

from omnieval.benchmarks.megabench.metrics.query import load_mapping
from omnieval.errors import MetricError
from omnieval.parsers import register_parser
from omnieval.parsers.library.scores import drop_reasoning, read_scale_score
from omnieval.types import MediaRef, Parsed, ParseFailure, ParseOutcome, Sample

__all__ = [
    "ASCII_QUESTION",
    "JUDGE_SCALE",
    "SCORE_FORMAT",
    "ascii_art_verdict",
    "fill_criteria",
    "judge_config",
    "judge_config_error",
    "judge_media",
    "judge_prompt",
    "judge_score",
    "judged_fields",
    "query_media",
]

JUDGE_SCALE = (1, 10)
SCORE_FORMAT = (
    "Rate the model response on a scale from 1 (worst) to 10 (best) following the criteria above. "
    "Reply in exactly this format:\n"
    "**Score**: <one integer from 1 to 10>\n"
    "**Score explanation**: <why the response deserves this score>"
)
"""Our wording of Fig. 13's pre-defined scoring-format instruction (the criteria come from the data)."""
ASCII_QUESTION = "Do these two images of ASCII art show the same object? Answer with one word: yes or no."
"""Our wording of the ASCII-art judge's question (image 1: the response, image 2: the reference)."""
_HAS_FORMAT = re.compile(r"score\W{0,4}explanation|\*\*score\*\*", re.IGNORECASE)
JUDGE_METRICS = ("gpt_4o_as_judge", "ascii_art_gpt4o_judge")


def judged_fields(info: dict[str, Any]) -> dict[str, str]:
    """``{field: judge metric}`` for the task's judge-scored fields (answer fields and global aux)."""
    table = {**(info.get("field_score_function") or {}), **(info.get("global_aux_metrics") or {})}
    return {str(f): str(m).lower() for f, m in table.items() if str(m).lower() in JUDGE_METRICS}


def judge_config(sample: Sample) -> dict[str, Any]:
    """The task's ``gpt4o_eval_configs``, checked (a broken config names the sample and key)."""
    info = load_mapping(sample.metadata.get("metric_info") or {}, what=f"sample {sample.id}: metric_info")
    config = info.get("gpt4o_eval_configs")
    if not isinstance(config, dict):
        raise MetricError(
            f"sample {sample.id}: metric_info has no 'gpt4o_eval_configs' dict for its judged field"
        )
    for key in ("eval_criteria_prompt", "template_mapping"):
        if key not in config:
            raise MetricError(f"sample {sample.id}: gpt4o_eval_configs lacks {key!r}")
    if not isinstance(config["template_mapping"], dict):
        raise MetricError(f"sample {sample.id}: gpt4o_eval_configs['template_mapping'] must be a dict")
    return config


def _source_value(
    source: str, *, response: str, question: str, reference: dict[str, Any], context: dict[str, Any]
) -> Any:
    head, _, key = str(source).partition(".")
    if source == "model_output":
        return response
    if source == "example_question":
        return question
    if head in ("answers", "eval_context") and key:
        table = reference if head == "answers" else context
        if key not in table:
            raise MetricError(
                f"template_mapping source {source!r}: no {key!r} in {head} (keys: {sorted(table)})"
            )
        return table[key]
    raise MetricError(
        f"template_mapping source {source!r} is not model_output, example_question, answers.X or "
        "eval_context.X"
    )


def fill_criteria(
    config: dict[str, Any],
    *,
    response: str,
    question: str,
    reference: dict[str, Any],
    context: dict[str, Any],
) -> str:
    """The task's criteria prompt with its placeholders filled, plus the score format when it lacks one."""
    template = str(config["eval_criteria_prompt"])
    values = {
        str(name): _source_value(
            str(src), response=response, question=question, reference=reference, context=context
        )
        for name, src in config["template_mapping"].items()
    }
    try:
        used = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
        missing = sorted(used - set(values))
        if missing:
            raise MetricError(
                f"eval_criteria_prompt uses placeholder(s) {missing} that template_mapping does not define"
            )
        text = template.format_map(values)
    except (ValueError, KeyError, IndexError, AttributeError) as exc:  # stray braces, format specs
        raise MetricError(
            f"eval_criteria_prompt is not a valid format string: {type(exc).__name__}: {exc}"
        ) from None
    return text if _HAS_FORMAT.search(text) else f"{text.rstrip()}\n\n{SCORE_FORMAT}"


def query_media(sample: Sample) -> list[MediaRef]:
    """The query's own media (not the task's global media nor the demo's), as the original judge gets."""
    counts = list(sample.metadata.get("megabench_media_counts") or [0, 0, len(sample.media)])
    return list(sample.media[counts[0] + counts[1] :])


def judge_prompt(sample: Sample, response: str) -> str:
    """The judge's text for one response: the task's criteria filled in (plus the score format if absent)."""
    config = judge_config(sample)
    gold = sample.targets[0] if sample.targets and isinstance(sample.targets[0], dict) else {}
    context = load_mapping(
        sample.metadata.get("eval_context") or {}, what=f"sample {sample.id}: eval_context"
    )
    question = str(sample.fields.get("query_text") or sample.input)
    return fill_criteria(config, response=response, question=question, reference=gold, context=context)


def judge_media(sample: Sample, *, media: str = "task") -> tuple[MediaRef, ...]:
    """The query media when the task is judged "with image" (``media``: task / always / never)."""
    if media not in ("task", "always", "never"):
        raise MetricError(f"megabench judge: media must be task, always or never, got {media!r}")
    kind = str(judge_config(sample).get("judge_model_type", "")).strip().lower()
    with_media = media == "always" or (media == "task" and kind == "with image")
    return tuple(query_media(sample)) if with_media else ()


def judge_config_error(sample: Sample) -> str | None:
    """Why this sample's judge prompt cannot be built (checked at import time), or None."""
    if (
        "gpt_4o_as_judge"
        not in judged_fields(
            load_mapping(sample.metadata.get("metric_info") or {}, what="metric_info")
        ).values()
    ):
        return None
    try:
        judge_prompt(sample, "RESPONSE")
        judge_media(sample)
    except MetricError as exc:
        return str(exc)
    return None


@register_parser("megabench.judge_score")
def judge_score(text: str, sample: Sample, /) -> ParseOutcome:
    """MEGA-Bench judge verdict ``**Score**: N``: the integer N in 1-10 (unparseable is a failure, not 0)."""
    return read_scale_score(text, low=JUDGE_SCALE[0], high=JUDGE_SCALE[1], labels=("score",), what="score")


_WORD = re.compile(r"[a-zа-яё]+", re.IGNORECASE)


@register_parser("megabench.ascii_art_verdict")
def ascii_art_verdict(text: str, sample: Sample, /) -> ParseOutcome:
    """ASCII-art judge verdict: 1 for "yes", 0 for "no" (the first word decides; hedging is a failure).

    The original scores 1 whenever "yes" occurs anywhere (so "eyes" or "no, not yes" count as yes).
    """
    answer = drop_reasoning(text or "")
    if answer is None:
        return ParseFailure(reason="the ASCII-art judge's reasoning was cut off before yes or no")
    words = [w.lower() for w in _WORD.findall(answer)]
    if not words:
        return ParseFailure(reason="empty ASCII-art judge output: expected yes or no")
    if words[0] in ("yes", "no"):
        return Parsed(value=1 if words[0] == "yes" else 0, how="first_word")
    said = {w for w in words if w in ("yes", "no")}
    if len(said) == 1:
        return Parsed(value=1 if "yes" in said else 0, how="single_answer_word")
    why = "both yes and no" if said else "neither yes nor no"
    return ParseFailure(reason=f"ASCII-art judge output says {why}: {' '.join(words[:20])!r}")
