"""``replay/PATH``: answers recorded elsewhere, to score predictions without calling a model.

The JSONL is read once and indexed by ``(task, sample_id, repeat)`` (``repeat`` optional: a line
without it answers every repeat of the sample); every line problem is reported with the file and line
number before the run starts, and a missing sample is a per-sample error. A task
name that matches no task exactly is matched ignoring case, ``-`` and ``_`` when that is unambiguous
(``ruHHH-Image`` lines answer the task ``ruhhh_image``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from omnieval.backends.base import Backend, BackendOptions, register_backend
from omnieval.errors import BackendError, ConfigError
from omnieval.store.jsonl import json_objects
from omnieval.types import FinishReason, Request, Response

__all__ = ["ReplayBackend", "load_replay"]

_FINISH = ("stop", "length", "error", "content_filter", "other")


def _response_of(value: Any, *, where: str, numbers: bool = False) -> Response:
    """A recorded response: a plain string or an object with at least ``text`` (or, with ``numbers``,
    a JSON number such as a judge verdict written as ``1``)."""
    if isinstance(value, str):
        return Response(text=value)
    if numbers and isinstance(value, int | float) and not isinstance(value, bool):
        return Response(text=str(value))
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        raise ConfigError(f"{where}: field 'response' must be a string or an object with a string 'text'")
    finish = value.get("finish_reason") or "stop"
    if finish not in _FINISH:
        raise ConfigError(f"{where}: field 'response.finish_reason' must be one of {_FINISH}, got {finish!r}")
    reasoning = value.get("reasoning")
    raw_text = value.get("raw_text")
    extra = {k: v for k, v in value.items() if k not in ("text", "finish_reason", "reasoning", "raw_text")}
    return Response(
        text=value["text"],
        reasoning=reasoning if isinstance(reasoning, str) else None,
        raw_text=raw_text if isinstance(raw_text, str) else None,
        finish_reason=cast(FinishReason, finish),  # checked against _FINISH above
        extra=extra,
    )


Key = tuple[str, str, int | None]
"""``(task, sample_id, repeat)``; ``repeat`` ``None``: the line answers every repeat of the sample."""


def _call_of(call: Any, step: int, index: int) -> Any:
    """A recorded call as omnieval writes it (``{id, name, arguments}`` with the arguments' JSON text), also
    read in OpenAI's shape (``{id, type, function: {name, arguments}}``) and with the arguments as an
    object; a call without an id gets ``call_STEP_INDEX``."""
    if not isinstance(call, dict):
        return call
    function: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else call
    arguments = function.get("arguments", "{}")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {
        "id": str(call.get("id") or f"call_{step}_{index}"),
        "name": function.get("name"),
        "arguments": arguments,
    }


def _turns_of(episode: Any, *, where: str) -> tuple[Response, ...]:
    """The model turns of a recorded episode (``episode.steps``, as a run's ``samples.jsonl`` has them),
    each played back in order: its text, tool calls, usage and finish reason."""
    from pydantic import ValidationError

    from omnieval.types.agent import EpisodeStep

    steps = episode.get("steps") if isinstance(episode, dict) else None
    if not isinstance(steps, list):
        raise ConfigError(f"{where}: field 'episode.steps' must be a list of model turns")
    turns = []
    for i, raw in enumerate(steps):
        if isinstance(raw, dict) and isinstance(raw.get("tool_calls"), list):
            raw = {**raw, "tool_calls": [_call_of(c, i, j) for j, c in enumerate(raw["tool_calls"])]}
        try:
            step = EpisodeStep.model_validate({"index": i, **raw} if isinstance(raw, dict) else raw)
        except ValidationError as exc:
            raise ConfigError(f"{where}: field 'episode.steps[{i}]' is not a model turn: {exc}") from None
        if step.error is not None:
            turns.append(Response.from_error(step.error))
            continue
        finish = step.finish_reason if step.finish_reason in _FINISH else "other"
        turns.append(
            Response(
                text=step.text,
                reasoning=step.reasoning,
                tool_calls=step.tool_calls,
                usage=step.usage,
                finish_reason=cast(FinishReason, finish),
            )
        )
    return tuple(turns)


def _parse_row(row: dict[str, Any], *, where: str, numbers: bool = False) -> tuple[Key, Response]:
    if row.get("episode") is not None and "response" not in row:
        row = {**row, "response": ""}  # an episode's answer is its last turn
    for field in ("task", "sample_id", "response"):
        if field not in row:
            raise ConfigError(f"{where}: missing field {field!r} (lines need task, sample_id, response)")
    task, sample_id = row["task"], row["sample_id"]
    if not isinstance(task, str) or not isinstance(sample_id, str | int):
        raise ConfigError(f"{where}: field 'task' must be a string and 'sample_id' a string or integer")
    repeat = row.get("repeat")
    if repeat is not None and (not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 0):
        raise ConfigError(f"{where}: field 'repeat' must be a repeat index (an integer ≥ 0) or null")
    response = _response_of(row["response"] or "", where=where, numbers=numbers)
    if row.get("episode") is not None:
        extra = {**response.extra, "turns": _turns_of(row["episode"], where=where)}
        response = response.model_copy(update={"extra": extra})
    return (task, str(sample_id), repeat), response


def _repeat_text(repeat: int | None) -> str:
    return "" if repeat is None else f" repeat {repeat}"


def load_replay(path: str | Path, *, numbers: bool = False) -> dict[Key, Response]:
    """Index a replay file; a duplicate ``(task, sample_id, repeat)`` is an error because the answer is
    ambiguous (a run's ``samples.jsonl`` with repeats replays each repeat's own answer)."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"replay file {file} does not exist")
    index: dict[Key, Response] = {}
    first_line: dict[Key, int] = {}
    for number, row in json_objects(
        file, error=lambda n, reason: ConfigError(f"replay file {file}, line {n}: {reason}")
    ):
        where = f"replay file {file}, line {number}"
        key, response = _parse_row(row, where=where, numbers=numbers)
        if key in index:
            raise ConfigError(
                f"{where}: task {key[0]!r} sample {key[1]!r}{_repeat_text(key[2])} already answered on line "
                f"{first_line[key]}"
            )
        index[key] = response
        first_line[key] = number
    return index


def _fold(task: str) -> str:
    return task.casefold().replace("-", "").replace("_", "")


@register_backend("replay")
class ReplayBackend(Backend):
    """Serves recorded answers; free to recompute, so never cached."""

    modalities = frozenset({"text", "image", "audio", "video"})
    caches_responses = False
    tool_calling = True
    """A recorded episode's turns are played back one by one (the tools run again, in process)."""

    def __init__(self, model: str, *, options: BackendOptions, numbers: bool = False) -> None:
        """``numbers``: accept JSON numbers as responses (judge verdicts written as ``1``)."""
        super().__init__(model, options=options)
        path = Path(model).expanduser()
        if not path.exists() and Path("/" + model).exists():
            path = Path("/" + model)  # ``replay/abs/path.jsonl`` written without the doubled slash
        self.path = path
        self._index = load_replay(self.path, numbers=numbers)
        self._folded: dict[Key, Response | None] = {}
        """Responses by folded task name; ``None`` where two spellings fold alike (ambiguous: no match)."""
        for (task, sample_id, repeat), response in self._index.items():
            key = (_fold(task), sample_id, repeat)
            self._folded[key] = response if key not in self._folded else None

    async def generate(self, request: Request) -> Response:
        """The line for this repeat of the sample, else the sample's line without a repeat index (it
        answers every repeat)."""
        task, sid = request.task, request.sample_id
        for repeat in dict.fromkeys((request.repeat, None)):
            found = self._index.get((task, sid, repeat))
            if found is None:
                found = self._folded.get((_fold(task), sid, repeat))
            if found is not None:
                return self._turn(found, request) if request.tools else found
        raise BackendError(
            f"replay file {self.path} has no response for task {task!r} sample {sid!r}"
            f"{_repeat_text(request.repeat)}",
            retryable=False,
        )

    def recorded_repeats(self, task: str) -> int | None:
        """One more than the highest repeat index recorded for ``task`` (``None``: lines without one)."""
        found = [r for t, _, r in self._index if r is not None and (t == task or _fold(t) == _fold(task))]
        return max(found) + 1 if found else None

    def _turn(self, found: Response, request: Request) -> Response:
        """The recorded turn of the step ``request`` asks for (its earlier turns each called tools)."""
        turns = found.extra.get("turns")
        where = f"replay file {self.path}: task {request.task!r} sample {request.sample_id!r}"
        if turns is None:
            raise BackendError(
                f"{where}{_repeat_text(request.repeat)} has no recorded episode", retryable=False
            )
        step = sum(1 for m in request.messages if m.role == "assistant" and m.tool_calls)
        if step >= len(turns):
            raise BackendError(
                f"{where}{_repeat_text(request.repeat)}: the episode recorded {len(turns)} model turns, step "
                f"{step} asked for",
                retryable=False,
            )
        return cast(Response, turns[step])

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "path": str(self.path), "responses": len(self._index)}
