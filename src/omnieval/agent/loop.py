"""The agent loop: model → tool calls → results → model, until the submit tool, a final answer or a limit.

Every model turn becomes an :class:`EpisodeStep`; every tool call a :class:`ToolOutcome` with its state
(an unknown tool, arguments failing the schema, a tool that raises or hangs: each counted, named with
its cause, and told to the model so the episode goes on). Parallel calls of one turn run in the order
written, so the final state never depends on timing. Images a tool returns are saved under
``media_dir`` and shown to the model in a user message after the tool results.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from omnieval.agent.environment import Environment
from omnieval.agent.tools import Tool, ToolResult, schema_error
from omnieval.types import ContentPart, ImagePart, MediaRef, Message, Request, Response, TextPart, Usage
from omnieval.types.agent import AgentSpec, EndState, Episode, EpisodeStep, ToolOutcome
from omnieval.types.tools import ToolCall, ToolSpec

__all__ = ["run_episode", "submit_spec"]

Call = Callable[[Request], Awaitable[Response]]


def submit_spec(name: str) -> ToolSpec:
    return ToolSpec(
        name=name,
        description="Submit the final answer and end the task / Отправить окончательный ответ",
        parameters={
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
            "additionalProperties": False,
        },
    )


async def _in_thread(fn: Callable[[], ToolResult], timeout_s: float) -> ToolResult:
    """Run a tool in a daemon thread: one that hangs is abandoned after ``timeout_s`` (it can never
    hold the run's exit, as a pool thread would)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[ToolResult] = loop.create_future()

    def settle(out: ToolResult | None, error: BaseException | None) -> None:
        if future.done():  # abandoned after its timeout
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(out)  # type: ignore[arg-type]

    def target() -> None:
        out: ToolResult | None = None
        error: BaseException | None = None
        try:
            out = fn()
        except BaseException as exc:  # handed to the episode, which records it as tool_error
            error = exc
        with contextlib.suppress(RuntimeError):  # the run ended while an abandoned tool still ran
            loop.call_soon_threadsafe(settle, out, error)

    threading.Thread(target=target, name="omnieval-tool", daemon=True).start()
    async with asyncio.timeout(timeout_s):
        return await future


class _Episode:
    """The mutable run of one episode; :meth:`finish` freezes it into an :class:`Episode`."""

    def __init__(self, env: Environment, spec: AgentSpec, media_dir: Path, stem: str) -> None:
        self.env, self.spec, self.media_dir, self.stem = env, spec, media_dir, stem
        self.tools: dict[str, Tool] = {t.name: t for t in env.tools()}
        self.steps: list[EpisodeStep] = []
        self.tokens = 0
        self.cost: float | None = None
        self.started = time.perf_counter()
        self.answer: str | None = None

    def specs(self) -> tuple[ToolSpec, ...]:
        return (*(t.spec() for t in self.tools.values()), submit_spec(self.spec.submit_tool))

    def limit_reached(self, step: int) -> tuple[EndState, str] | None:
        spec = self.spec
        if spec.max_tokens is not None and self.tokens >= spec.max_tokens:
            return "token_limit", f"step {step}: token limit {spec.max_tokens} reached ({self.tokens} used)"
        elapsed = time.perf_counter() - self.started
        if spec.max_time_s is not None and elapsed >= spec.max_time_s:
            return "time_limit", f"step {step}: time limit {spec.max_time_s:g} s reached ({elapsed:.1f} s)"
        if spec.max_cost_usd is not None and (self.cost or 0.0) >= spec.max_cost_usd:
            return "cost_limit", f"step {step}: cost limit ${spec.max_cost_usd:g} reached"
        return None

    async def run_call(self, step: int, call: ToolCall) -> tuple[ToolOutcome, list[MediaRef]]:
        started = time.perf_counter()

        def failed(state: Any, cause: str) -> tuple[ToolOutcome, list[MediaRef]]:
            text = f"error: {cause}"
            return ToolOutcome(
                call_id=call.id,
                name=call.name,
                state=state,
                output=text,
                cause=f"step {step}: {cause}",
                latency_s=time.perf_counter() - started,
            ), []

        submit = call.name == self.spec.submit_tool
        tool = self.tools.get(call.name)
        if tool is None and not submit:
            return failed("unknown_tool", f"unknown tool {call.name!r} (tools: {', '.join(self.tools)})")
        try:
            raw = json.loads(call.arguments or "{}")
        except ValueError as exc:
            return failed("bad_arguments", f"tool {call.name!r}: arguments are not JSON ({exc})")
        if not isinstance(raw, dict):
            return failed("bad_arguments", f"tool {call.name!r}: arguments must be a JSON object")
        if submit:
            answer = raw.get("answer")
            if (
                not isinstance(answer, str | int | float)
                or isinstance(answer, bool)
                or set(raw) != {"answer"}
            ):
                return failed("bad_arguments", f"tool {call.name!r} takes one argument 'answer' (a string)")
            self.answer = str(answer)
            self.env.submit(self.answer)
            return ToolOutcome(call_id=call.id, name=call.name, state="ok", output="submitted"), []
        assert tool is not None
        try:
            args = tool.validate(raw)
        except ValueError as exc:  # pydantic's ValidationError is one
            return failed("bad_arguments", f"tool {call.name!r}: {schema_error(exc)}")
        try:
            result = await _in_thread(lambda: tool.call(args), self.spec.tool_timeout_s)
        except TimeoutError:
            self.env.tool_timed_out(call.name)
            return failed(
                "tool_timeout", f"tool {call.name!r} gave no result within {self.spec.tool_timeout_s:g} s"
            )
        except Exception as exc:
            return failed("tool_error", f"tool {call.name!r} raised {type(exc).__name__}: {exc}")
        try:
            refs = [self.save_image(step, call, k, image) for k, image in enumerate(result.images)]
        except (OSError, ValueError) as exc:  # a picture that cannot be decoded or saved
            return failed("tool_error", f"tool {call.name!r} returned an unreadable image: {exc}")
        outcome = ToolOutcome(
            call_id=call.id,
            name=call.name,
            state="ok",
            output=result.text,
            images=tuple(self.shown_as(r) for r in refs),
            latency_s=time.perf_counter() - started,
        )
        return outcome, refs

    def shown_as(self, ref: MediaRef) -> str:
        """The image's path as the episode records it: relative to the run folder (``media_dir``'s
        parent), so the report beside it shows it wherever the folder is moved."""
        path = Path(ref.path or "")
        try:
            return path.relative_to(self.media_dir.parent).as_posix()
        except ValueError:
            return str(path)

    def save_image(self, step: int, call: ToolCall, k: int, image: Any) -> MediaRef:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        data = buffer.getvalue()
        self.media_dir.mkdir(parents=True, exist_ok=True)
        path = self.media_dir / f"{self.stem}-step{step}-{call.id}-{k}.png".replace("/", "_")
        path.write_bytes(data)
        return MediaRef(
            kind="image", name=f"tool_{step}_{k}", path=str(path), sha256=hashlib.sha256(data).hexdigest()
        )

    def finish(self, end: EndState, reason: str) -> Episode:
        return Episode(
            environment=self.env.name,
            steps=tuple(self.steps),
            end=end,
            end_reason=reason,
            answer=self.answer,
            final_state=self.env.snapshot(),
            tokens=self.tokens,
            time_s=time.perf_counter() - self.started,
            cost_usd=self.cost,
        )


def _step_of(index: int, response: Response, outcomes: tuple[ToolOutcome, ...] = ()) -> EpisodeStep:
    return EpisodeStep(
        index=index,
        text=response.text,
        reasoning=response.reasoning,
        tool_calls=response.tool_calls,
        outcomes=outcomes,
        usage=response.usage,
        latency_s=response.latency_s,
        cost_usd=response.cost_usd,
        finish_reason=response.finish_reason,
        error=response.error,
    )


async def run_episode(
    call: Call, request: Request, env: Environment, spec: AgentSpec, *, media_dir: Path, stem: str
) -> Response:
    """Run one episode from ``request`` (the rendered task prompt); the answer as a :class:`Response`
    whose ``extra["episode"]`` is the whole trace (usage, time and cost summed over the steps). The
    environment is closed at the end, whatever happened."""
    try:
        return await _run(call, request, env, spec, media_dir=media_dir, stem=stem)
    finally:
        env.close()


async def _run(
    call: Call, request: Request, env: Environment, spec: AgentSpec, *, media_dir: Path, stem: str
) -> Response:
    run = _Episode(env, spec, media_dir, stem)
    messages = list(request.messages)
    tools = run.specs()
    episode: Episode | None = None
    for index in range(spec.max_steps):
        limit = run.limit_reached(index)
        if limit is not None:
            episode = run.finish(*limit)
            break
        response = await call(request.model_copy(update={"messages": tuple(messages), "tools": tools}))
        usage = response.usage
        run.tokens += (usage.prompt_tokens or 0) + (usage.completion_tokens or 0)
        if response.cost_usd is not None:
            run.cost = (run.cost or 0.0) + response.cost_usd
        if response.error is not None:
            run.steps.append(_step_of(index, response))
            episode = run.finish("model_error", f"step {index}: the model call failed: {response.error}")
            break
        if not response.tool_calls:
            run.steps.append(_step_of(index, response))
            run.answer = response.text
            env.submit(response.text)  # a final answer is an answer, as a submit would be
            episode = run.finish("final_answer", f"step {index}: answered without a tool call")
            break
        messages.append(Message(role="assistant", content=response.text, tool_calls=response.tool_calls))
        outcomes, shown = [], []
        for tool_call in response.tool_calls:
            outcome, refs = await run.run_call(index, tool_call)
            outcomes.append(outcome)
            shown.extend(refs)
            messages.append(Message(role="tool", content=outcome.output, tool_call_id=tool_call.id))
        run.steps.append(_step_of(index, response, tuple(outcomes)))
        if shown:
            parts: tuple[ContentPart, ...] = (
                TextPart(text="Tool images / изображения от инструментов:"),
                *(ImagePart(media=r) for r in shown),
            )
            messages.append(Message(role="user", content=parts))
        if run.answer is not None and any(o.name == spec.submit_tool and o.state == "ok" for o in outcomes):
            episode = run.finish("submitted", f"step {index}: submitted")
            break
    if episode is None:
        episode = run.finish("step_limit", f"step {spec.max_steps - 1}: step limit {spec.max_steps} reached")
    return _response_of(episode)


def _response_of(episode: Episode) -> Response:
    prompt = sum(s.usage.prompt_tokens or 0 for s in episode.steps)
    completion = sum(s.usage.completion_tokens or 0 for s in episode.steps)
    error = episode.end_reason if episode.end == "model_error" else None
    return Response(
        text=episode.answer or "",
        finish_reason="error" if error else "stop",
        error=error,
        usage=Usage(prompt_tokens=prompt, completion_tokens=completion),
        latency_s=episode.time_s,
        cost_usd=episode.cost_usd,
        extra={"episode": episode},
    )
