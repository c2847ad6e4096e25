"""The LLM check of mined distractors (MARKER used GPT-4.1-mini): bad main options → good spares.

One request per item lists the main and spare distractors, numbered; the model answers with JSON
``{"bad": [numbers]}`` naming options that are also correct, duplicates of the answer or of each
other, or so obviously wrong that they give the answer away. Each bad main option is replaced by
the next spare not named bad. Any backend works (``openai/...``, ``hf/...``, ``replay/FILE`` to
replay recorded verdicts). A call that fails or whose reply cannot be read is ``judge_failed``: the
item keeps its main options and the count is reported, never silently treated as approval.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Literal

from omnieval.backends import BackendOptions, create_backend
from omnieval.benchmarks.marker.distractors import MinedItem
from omnieval.errors import OmnievalError
from omnieval.registry import load_plugins
from omnieval.types import GenerationConfig, Message, Request

__all__ = ["PROMPT_VERSION", "VALIDATION_TASK", "Checked", "apply_verdict", "build_request", "parse_verdict",
           "validate"]

PROMPT_VERSION = "marker-distractors-1"
VALIDATION_TASK = "marker_distractor_validation"
_PROMPT = """Ты проверяешь варианты ответа для теста с выбором ответа.
Вопрос: {question}
Правильный ответ: {answer}
Неправильные варианты (дистракторы):
{listing}
Назови номера плохих дистракторов: тех, что тоже верны, повторяют правильный ответ или друг друга,
или настолько явно неверны, что выдают правильный ответ. Ответь только JSON: {{"bad": [номера]}}."""

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


def build_request(mined: MinedItem, *, max_tokens: int = 64) -> Request:
    options = [*mined.main, *mined.spares]
    listing = "\n".join(f"{i}. {text}" for i, text in enumerate(options, 1))
    text = _PROMPT.format(question=mined.item.question, answer=mined.item.answer, listing=listing)
    return Request(task=VALIDATION_TASK, sample_id=mined.item.id, messages=(Message(role="user", content=text),),
                   generation=GenerationConfig(temperature=0.0, max_tokens=max_tokens))


def parse_verdict(text: str, n_options: int) -> tuple[int, ...] | None:
    """The option numbers named bad, or None when the reply holds no valid ``{"bad": [...]}``."""
    found = re.search(r"\{[^{}]*\}", text)
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


async def _check_all(mined: list[MinedItem], judge: str, options: BackendOptions) -> list[Checked]:
    backend = create_backend(judge, options=options)
    limit = asyncio.Semaphore(backend.max_connections())

    async def one(item: MinedItem) -> Checked:
        async with limit:
            try:
                response = await backend.generate(build_request(item))
            except OmnievalError as exc:
                return Checked(item, item.main, "judge_failed", reason=str(exc)[:300])
        n = len(item.main) + len(item.spares)
        bad = parse_verdict(response.text, n) if not response.error else None
        if bad is None:
            return Checked(item, item.main, "judge_failed", reason=f"unreadable verdict: {response.text[:200]!r}")
        return apply_verdict(item, bad)

    try:
        return list(await asyncio.gather(*(one(m) for m in mined)))
    finally:
        await backend.aclose()


def validate(mined: list[MinedItem], *, judge: str | None, options: BackendOptions | None = None) -> list[Checked]:
    """Check every item with ``judge`` (a model spec); without one, items keep their main options."""
    if judge is None:
        return [Checked(m, m.main, "not_checked") for m in mined]
    load_plugins()  # the backends register themselves on import
    return asyncio.run(_check_all(mined, judge, options or BackendOptions()))
