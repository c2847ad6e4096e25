"""POLLUX on the judge core: ``omnieval run --tasks pollux:ITEMS --model M --judge J`` generates the
answers and judges each one criterion per call.

- Templates ``pollux_ru@1`` and ``pollux_en@1`` (App. M.1) are registered from :mod:`prompts`.
- Protocol ``pollux_criteria`` plans one call per criterion the matcher gives the item, labelled with
  the criterion variant id; a variant that needs a reference the item lacks is not called (listed in
  the plan's notes).
- The core checks verdicts against one task-wide scale, POLLUX's widest (0–4); the exact per-criterion
  scale (0–1 … 0–4) is checked when ``omnieval pollux evaluate`` reads the run, where an out-of-scale
  verdict is ``judge_failed``, never clipped. The run's per-sample judge value (mean verdict / 4) is only
  a rough indicator; POLLUX's numbers come from ``pollux evaluate``.
"""

from __future__ import annotations

from typing import Literal

from omnieval.benchmarks.pollux.matcher import match_criteria
from omnieval.benchmarks.pollux.prompts import TEMPLATE_VERSION, TEMPLATES, NoReference, judge_variables
from omnieval.judges import CallSpec, JudgeInput, JudgePlan, register_judge_protocol, register_judge_template
from omnieval.metrics import register_metric
from omnieval.types import GenerationConfig, JudgeSpec, PluginRef, ScoringInput

__all__ = ["NO_GOLD", "POLLUX_SCALE", "pollux_answered", "pollux_criteria", "pollux_judge_spec"]

POLLUX_SCALE = (0.0, 4.0)
NO_GOLD = "(no gold answer: judged criterion by criterion)"
"""The target of a POLLUX sample. The judge core judges only samples that have a target; POLLUX has
none, so this marker stands in and no metric compares with it."""


@register_metric("pollux_answered")
def pollux_answered(inp: ScoringInput, /) -> float:
    """1 when the model gave a non-empty answer to judge (POLLUX's plain metric; quality comes from the
    judge)."""
    return 1.0 if str(inp.response or "").strip() else 0.0


for _lang, _text in TEMPLATES.items():
    register_judge_template(
        f"pollux_{_lang}",
        version=TEMPLATE_VERSION,
        user=_text,
        description=f"POLLUX judge prompt ({_lang}), App. M.1; one criterion per call",
    )


@register_judge_protocol("pollux_criteria")
def pollux_criteria(
    inp: JudgeInput,
    /,
    *,
    template: Literal["ru", "en"] = "ru",
    missing_reference: Literal["omit", "placeholder"] = "omit",
) -> JudgePlan:
    """One call per criterion of the item (``sample.metadata['pollux']``), labelled by variant id."""
    meta = inp.sample.metadata["pollux"]
    variants = match_criteria(
        task_type=meta["task_type"],
        subtype=meta.get("task_subtype"),
        style=meta.get("functional_style"),
        ethics=bool(meta.get("ethics_flag")),
    )
    calls, skipped = [], []
    for variant in variants:
        try:
            variables = judge_variables(
                instruction=inp.sample.input,
                answer=inp.answer,
                criterion=variant,
                reference=inp.sample.fields.get("reference_answer"),
                template=template,
                missing_reference=missing_reference,
            )
        except NoReference:
            skipped.append(variant.id)
            continue
        pieces = (
            inp.sample.input,
            variables["reference_answer"] or "",
            inp.answer,
            variables["criteria_name"] or "",
        )
        calls.append(CallSpec(label=variant.id, variables=dict(variables), pieces=pieces))
    return JudgePlan(calls=tuple(calls), combine="mean", notes={"no_reference": skipped})


def pollux_judge_spec(
    *, template: Literal["ru", "en"] = "ru", missing_reference: str = "omit", regression: bool = False
) -> JudgeSpec:
    """The judge block of a ``pollux:`` task (judged only when a run names ``--judge``); ``regression``
    accepts real-valued verdicts (a ``pollux_reg/`` judge)."""
    return JudgeSpec(
        key="pollux_js",
        protocol=PluginRef(
            name="pollux_criteria", options={"template": template, "missing_reference": missing_reference}
        ),
        template=f"pollux_{template}@{TEMPLATE_VERSION}",
        parser=PluginRef(
            name="pollux_judge",
            options={"min_score": 0, "max_score": int(POLLUX_SCALE[1]), "allow_real": regression},
        ),
        scale=POLLUX_SCALE,
        generation=GenerationConfig(temperature=0.0, max_tokens=1024),
    )
