"""``baseline/random``, ``baseline/first-option``, ``baseline/oracle``: reference points for every task.

The oracle answers the gold target, so a task whose parser and metric do not then score 1.0 is
mis-defined; random and first-option give the chance level a real model must beat.
"""

from __future__ import annotations

import random
import string
from typing import Any, ClassVar

from omnieval.backends.base import Backend, BackendOptions, register_backend
from omnieval.errors import BackendError, ConfigError
from omnieval.types import Request, Response

__all__ = ["BaselineBackend", "choice_labels", "target_like"]

_LOWER_CYR = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"
_UPPER_CYR = _LOWER_CYR.upper()


def choice_labels(n: int) -> str:
    """Letters the prompt uses for ``n`` options (``A``, ``B``, ...)."""
    if n > len(string.ascii_uppercase):
        raise ValueError(f"{n} options exceed the {len(string.ascii_uppercase)} letter labels")
    return string.ascii_uppercase[:n]


def target_like(example: str, rng: random.Random) -> str:
    """A random string shaped like ``example``: each character replaced by one of its own class."""
    out = []
    for ch in example:
        if ch.isdigit():
            out.append(rng.choice(string.digits))
        elif ch in _LOWER_CYR:
            out.append(rng.choice(_LOWER_CYR))
        elif ch in _UPPER_CYR:
            out.append(rng.choice(_UPPER_CYR))
        elif ch.isascii() and ch.isalpha():
            out.append(rng.choice(string.ascii_lowercase if ch.islower() else string.ascii_uppercase))
        else:
            out.append(ch)
    return "".join(out)


def _rng(request: Request) -> random.Random:
    return random.Random(f"{request.generation.seed}:{request.task}:{request.sample_id}")


def _gold(request: Request) -> str:
    if not request.targets or request.targets[0] in (None, ""):
        raise BackendError(
            f"baseline/oracle: task {request.task!r} sample {request.sample_id!r} has no gold answer",
            retryable=False,
        )
    return str(request.targets[0])


def _random_answer(request: Request) -> str:
    rng = _rng(request)
    if request.choices:
        try:
            return rng.choice(choice_labels(len(request.choices)))
        except ValueError as exc:
            raise BackendError(
                f"baseline/random: task {request.task!r} sample {request.sample_id!r}: {exc}"
            ) from None
    if request.targets and request.targets[0] not in (None, ""):
        return target_like(str(request.targets[0]), rng)
    return str(rng.randrange(10))


def _likelihoods(request: Request, mode: str) -> tuple[float, ...]:
    """Per-continuation log-likelihoods that make the baseline pick its answer (answered as its letter,
    like the hf backend does)."""
    n = len(request.continuations)
    if mode == "random":
        rng = _rng(request)
        return tuple(-rng.random() for _ in range(n))
    if mode == "first-option":
        return tuple(0.0 if i == 0 else -1.0 for i in range(n))
    gold = _gold(request).strip()
    texts = [c.strip() for c in request.continuations]
    if gold in texts:
        pick = texts.index(gold)
    elif len(gold) == 1 and gold in string.ascii_uppercase[:n]:
        pick = string.ascii_uppercase.index(gold)
    else:
        raise BackendError(
            f"baseline/oracle: task {request.task!r} sample {request.sample_id!r}: gold {gold!r} "
            f"is not one of the continuations {texts}",
            retryable=False,
        )
    return tuple(0.0 if i == pick else -1.0 for i in range(n))


def _solution(gold: str, request: Request) -> Response:
    """The oracle in an agent episode: a gold answer that is a JSON list of tool calls (``[{"name",
    "arguments"}]``, a reference solution) is made in the first turn; any other gold is the final answer."""
    import json

    from omnieval.types.tools import ToolCall

    try:
        calls = json.loads(gold)
    except ValueError:
        return Response(text=gold)
    if not isinstance(calls, list) or not all(isinstance(c, dict) and "name" in c for c in calls):
        return Response(text=gold)
    if any(m.role == "assistant" for m in request.messages):
        return Response(text="")  # the solution was played (and its submit ended the episode)
    return Response(
        tool_calls=tuple(
            ToolCall(id=f"oracle_{i}", name=str(c["name"]), arguments=json.dumps(c.get("arguments", {})))
            for i, c in enumerate(calls)
        )
    )


@register_backend("baseline")
class BaselineBackend(Backend):
    """No model: a fixed answering rule, cheap enough never to cache."""

    modalities = frozenset({"text", "image", "audio", "video"})
    caches_responses = False
    tool_calling = True
    """Tools reach a baseline as they reach a model: random and first-option answer without calling any
    (the chance level of an agent task), the oracle plays a reference solution (``_solution``)."""
    MODES: ClassVar[tuple[str, ...]] = ("random", "first-option", "oracle")

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        if model not in self.MODES:
            raise ConfigError(f"unknown baseline {model!r}; choose one of {', '.join(self.MODES)}")

    async def generate(self, request: Request) -> Response:
        if request.kind == "loglikelihood":
            scores = _likelihoods(request, self.model)
            best = max(range(len(scores)), key=scores.__getitem__) if scores else 0
            return Response(text=string.ascii_uppercase[best], logprobs=scores)
        if self.model == "oracle":
            gold = _gold(request)
            return _solution(gold, request) if request.tools else Response(text=gold)
        if self.model == "first-option":
            return Response(text="A")
        return Response(text=_random_answer(request))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "rule": self.model}
