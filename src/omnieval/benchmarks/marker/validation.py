"""The LLM check of mined distractors (MARKER used GPT-4.1-mini): bad main options → good spares.

The check runs through the judge subsystem, like every other LLM verdict: a versioned prompt
template (``marker_distractors@1``), a protocol (``marker_distractors``: one call per item listing the
main and spare distractors, numbered), a registered verdict parser (``marker.bad_distractors``) and
:class:`omnieval.judges.Judge` (bounded retries of unreadable verdicts, a judge version hashed over
model, template and decoding). The judge answers JSON ``{"bad": [numbers]}`` naming options that are
also correct, duplicates of the answer or of each other, or so obviously wrong that they give the
answer away; the verdict value is the number of bad options. Each bad main option is replaced by the
next spare not named bad. Any judge spec works (``openai/...``, ``hf/...``, ``replay/FILE`` to replay
recorded verdicts). A call that fails or whose reply cannot be read is ``judge_failed``: the item keeps
its main options and the count is reported, never silently treated as approval.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from omnieval.backends import BackendOptions
from omnieval.benchmarks.marker.distractors import MinedItem
from omnieval.errors import ConfigError
from omnieval.judges import (
    CallSpec,
    Judge,
    JudgeInput,
    JudgePlan,
    create_judge_backend,
    register_judge_protocol,
    register_judge_template,
)
from omnieval.parsers import register_parser
from omnieval.parsers.library.scores import drop_reasoning
from omnieval.registry import load_plugins
from omnieval.types import (
    GenerationConfig,
    JudgeRecord,
    JudgeSpec,
    Parsed,
    ParseFailure,
    ParseOutcome,
    PluginRef,
    Sample,
)

__all__ = [
    "PROMPT_VERSION",
    "TEMPLATE",
    "VALIDATION_TASK",
    "Checked",
    "apply_verdict",
    "bad_distractors",
    "judge_spec",
    "marker_distractors",
    "parse_verdict",
    "validate",
]

VALIDATION_TASK = "marker_distractor_validation"
"""The judge's task name (replay files key recorded verdicts by it and the item id)."""
_USER = """Ты проверяешь варианты ответа для теста с выбором ответа.
Вопрос: {{ question | trim }}
Правильный ответ: {{ answer | trim }}
Неправильные варианты (дистракторы):
{% for option in options %}{{ loop.index }}. {{ option }}
{% endfor %}Назови номера плохих дистракторов: тех, что тоже верны, повторяют правильный ответ или друг друга,
или настолько явно неверны, что выдают правильный ответ. Ответь только JSON: {"bad": [номера]}."""
TEMPLATE = register_judge_template(
    "marker_distractors",
    version="1",
    user=_USER,
    description='MARKER distractor check: numbers of bad main/spare options as JSON {"bad": [...]}',
)
PROMPT_VERSION = TEMPLATE.ref

State = Literal["ok", "judge_failed", "not_checked"]


@dataclass(frozen=True)
class Checked:
    """The final main distractors of one item and what the check did."""

    mined: MinedItem
    main: tuple[str, ...]
    state: State
    bad: tuple[int, ...] = ()
    swaps: tuple[tuple[str, str], ...] = ()
    unreplaced: int = 0
    """Bad main options kept because no good spare was left."""
    reason: str = ""


@register_judge_protocol("marker_distractors")
def marker_distractors(inp: JudgeInput, /) -> JudgePlan:
    """One call per item: the question, its correct answer and the numbered options (``fields.options``)."""
    options = list(inp.sample.fields.get("options") or ())
    variables = {
        "question": inp.sample.input,
        "answer": inp.targets[0] if inp.targets else "",
        "options": options,
    }
    return JudgePlan((CallSpec("options", variables),))


def parse_verdict(text: str, n_options: int) -> tuple[int, ...] | None:
    """The option numbers named bad, or None when the reply holds no valid ``{"bad": [...]}``."""
    found = re.search(r"\{[^{}]*\}", drop_reasoning(text) or "")
    if found is None:
        return None
    try:
        verdict = json.loads(found.group(0))
    except json.JSONDecodeError:
        return None
    bad = verdict.get("bad") if isinstance(verdict, dict) else None
    if not isinstance(bad, list) or not all(isinstance(b, int) and not isinstance(b, bool) for b in bad):
        return None
    if any(not 1 <= b <= n_options for b in bad):
        return None
    return tuple(sorted(set(bad)))


@register_parser("marker.bad_distractors")
def bad_distractors(text: str, sample: Sample, /) -> ParseOutcome:
    """MARKER distractor check: the number of options named bad (``how`` lists them)."""
    n_options = len(sample.fields.get("options") or ())
    bad = parse_verdict(text, n_options)
    if bad is None:
        return ParseFailure(
            reason=f'expected JSON {{"bad": [option numbers 1..{n_options}]}}, got {text[:120]!r}'
        )
    return Parsed(value=len(bad), how=",".join(map(str, bad)))


def judge_spec(*, n_options: int) -> JudgeSpec:
    """The check's judge: verdict = how many of at most ``n_options`` options are bad (value = that share)."""
    return JudgeSpec(
        key="bad_share",
        protocol=PluginRef(name="marker_distractors"),
        template=TEMPLATE.ref,
        parser=PluginRef(name="marker.bad_distractors"),
        scale=(0.0, float(max(n_options, 1))),
        generation=GenerationConfig(temperature=0.0, max_tokens=64),
    )


def apply_verdict(mined: MinedItem, bad: tuple[int, ...]) -> Checked:
    """Replace each bad main option by the next spare not named bad."""
    n_main = len(mined.main)
    good_spares = [s for j, s in enumerate(mined.spares) if n_main + j + 1 not in bad]
    main, swaps, unreplaced = [], [], 0
    for i, text in enumerate(mined.main, 1):
        if i not in bad:
            main.append(text)
        elif good_spares:
            swaps.append((text, good_spares[0]))
            main.append(good_spares.pop(0))
        else:
            main.append(text)
            unreplaced += 1
    return Checked(mined, tuple(main), "ok", bad, tuple(swaps), unreplaced)


def _sample(mined: MinedItem) -> Sample:
    item = mined.item
    return Sample(
        id=item.id,
        input=item.question,
        targets=(item.answer,),
        fields={"question": item.question, "answer": item.answer, "options": [*mined.main, *mined.spares]},
    )


def _checked(mined: MinedItem, record: JudgeRecord) -> Checked:
    """The item after its judge record: the named options swapped, or ``judge_failed`` with the reason."""
    if record.value is None:
        return Checked(mined, mined.main, "judge_failed", reason=(record.reason or "no verdict")[:300])
    raw = record.calls[0].attempts[-1].raw or ""
    bad = parse_verdict(raw, len(mined.main) + len(mined.spares))
    if bad is None:  # the parser read the reply's text; its stored raw form must say the same
        return Checked(mined, mined.main, "judge_failed", reason=f"stored verdict unreadable: {raw[:200]!r}")
    return apply_verdict(mined, bad)


async def _check_all(
    mined: list[MinedItem], judge: str, options: BackendOptions
) -> tuple[list[Checked], dict[str, Any]]:
    backend = create_judge_backend(judge, options=options)
    if backend.classifies:
        await backend.aclose()
        raise ConfigError(f"the distractor check needs a generative judge; {judge!r} is a text classifier")
    n_options = max(len(m.main) + len(m.spares) for m in mined)
    checker = Judge(task=VALIDATION_TASK, spec=judge_spec(n_options=n_options), backend=backend)
    limit = asyncio.Semaphore(backend.max_connections())

    async def one(item: MinedItem) -> Checked:
        async with limit:
            record = await checker.judge(
                _sample(item), question=item.item.question, answer="", targets=(item.item.answer,)
            )
        return _checked(item, record)

    try:
        return list(await asyncio.gather(*(one(m) for m in mined))), checker.describe()
    finally:
        await backend.aclose()


def validate(
    mined: list[MinedItem],
    *,
    judge: str | None,
    options: BackendOptions | None = None,
    described: dict[str, Any] | None = None,
) -> list[Checked]:
    """Check every item with the ``judge`` model spec; without one, items keep their main options.

    ``described`` (a dict) receives the judge's description (spec, version, template) for the log.
    """
    if judge is None or not mined:
        return [Checked(m, m.main, "not_checked") for m in mined]
    load_plugins()  # the backends register themselves on import
    checked, info = asyncio.run(_check_all(mined, judge, options or BackendOptions()))
    if described is not None:
        described.update(info)
    return checked
