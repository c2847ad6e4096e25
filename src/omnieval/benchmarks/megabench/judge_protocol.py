"""MEGA-Bench Open tasks wired into the judge stage: protocols, prompt templates and the task's JudgeSpec.

- ``megabench_open``: one call per ``gpt_4o_as_judge`` field; the template is the task's own criteria
  prompt (``{{ criteria }}``), the judged text is the parsed field value the rule metrics would see,
  media are the query's when the task says "with image" (``media=task|always|never``). Verdict 1-10,
  sample value verdict / 10.
- ``megabench_ascii_art``: the response and the reference drawn as images, yes/no, value 1 or 0.

The judged metric ``megabench.query_score_judged`` then replaces ``megabench_score`` in judged runs: the
judge value scores the judge field, the task's other fields are scored by rule and all are aggregated
with the task's weights. Without a judge, Open tasks keep their unjudged score (see the scheme).
"""

from __future__ import annotations

from typing import Any

from omnieval.benchmarks.megabench.ascii_art import ascii_media
from omnieval.benchmarks.megabench.judge import (
    ASCII_QUESTION,
    JUDGE_SCALE,
    judge_media,
    judge_prompt,
    judged_fields,
)
from omnieval.benchmarks.megabench.metrics.query import load_mapping
from omnieval.benchmarks.megabench.parser import parse_megabench
from omnieval.judges import CallSpec, JudgeInput, JudgePlan, register_judge_protocol, register_judge_template
from omnieval.types import GenerationConfig, JudgeSpec, MetricRef, PluginRef, Sample

__all__ = [
    "ASCII_TEMPLATE",
    "JUDGE_KEY",
    "OPEN_TEMPLATE",
    "judge_spec",
    "megabench_ascii_art",
    "megabench_open",
]

JUDGE_KEY = "megabench_judge"
OPEN_TEMPLATE = register_judge_template(
    "megabench_open",
    version="1",
    user="{{ criteria }}",
    description="MEGA-Bench Open: the task's eval_criteria_prompt, filled per query, + the 1-10 score format",
)
ASCII_TEMPLATE = register_judge_template(
    "megabench_ascii_art",
    version="1",
    user=ASCII_QUESTION,
    description="MEGA-Bench ascii_art_gpt4o_judge: two rendered ASCII-art images, same object? yes/no",
)


def _info(sample: Sample) -> dict[str, Any]:
    return load_mapping(sample.metadata.get("metric_info") or {}, what=f"sample {sample.id}: metric_info")


def field_value(sample: Sample, answer: str, field: str, info: dict[str, Any]) -> str:
    """What the original hands its judge for ``field``: the parsed field value (the whole parsed
    response for a global auxiliary field), as text."""
    parsed = parse_megabench(answer, sample)
    obj = parsed.value if parsed.ok else answer
    if field in (info.get("global_aux_metrics") or {}) or not isinstance(obj, dict):
        return str(obj)
    return str(obj.get(field))


@register_judge_protocol("megabench_open")
def megabench_open(inp: JudgeInput, /, *, media: str = "task") -> JudgePlan:
    """One 1-10 judge call per ``gpt_4o_as_judge`` field, with the task's criteria prompt."""
    info = _info(inp.sample)
    fields = [f for f, m in judged_fields(info).items() if m == "gpt_4o_as_judge"]
    refs = judge_media(inp.sample, media=media)
    calls = tuple(
        CallSpec(
            label=f,
            variables={"criteria": judge_prompt(inp.sample, field_value(inp.sample, inp.answer, f, info))},
            media=refs,
        )
        for f in fields
    )
    return JudgePlan(calls, combine="first")


@register_judge_protocol("megabench_ascii_art")
def megabench_ascii_art(inp: JudgeInput, /) -> JudgePlan:
    """One yes/no call per ``ascii_art_gpt4o_judge`` field on the rendered response and reference."""
    info = _info(inp.sample)
    fields = [f for f, m in judged_fields(info).items() if m == "ascii_art_gpt4o_judge"]
    calls = tuple(
        CallSpec(
            label=f,
            variables={},
            media=ascii_media(inp.sample, field_value(inp.sample, inp.answer, f, info), field=f),
        )
        for f in fields
    )
    return JudgePlan(calls, combine="first")


def judge_spec(info: dict[str, Any], *, media: str = "task") -> JudgeSpec | None:
    """The JudgeSpec of a task with judge-scored fields (None for a Core task); ``media`` overrides
    whether the 1-10 judge sees the query media (``task`` keeps each task's own setting)."""
    kinds = set(judged_fields(info).values())
    if not kinds:
        return None
    metrics = (
        MetricRef(
            name="megabench.query_score_judged", alias="megabench_score", options={"judge_key": JUDGE_KEY}
        ),
    )
    if kinds == {"ascii_art_gpt4o_judge"}:
        return JudgeSpec(
            key=JUDGE_KEY,
            protocol=PluginRef(name="megabench_ascii_art"),
            template=ASCII_TEMPLATE.ref,
            parser=PluginRef(name="megabench.ascii_art_verdict"),
            scale=(0.0, 1.0),
            metrics=metrics,
            generation=GenerationConfig(temperature=0.0, max_tokens=16),
        )
    options = {} if media == "task" else {"media": media}
    return JudgeSpec(
        key=JUDGE_KEY,
        protocol=PluginRef(name="megabench_open", options=options),
        template=OPEN_TEMPLATE.ref,
        parser=PluginRef(name="megabench.judge_score"),
        scale=(float(JUDGE_SCALE[0]), float(JUDGE_SCALE[1])),
        divide_by=10.0,
        metrics=metrics,
        generation=GenerationConfig(temperature=0.0, max_tokens=1024),
    )
