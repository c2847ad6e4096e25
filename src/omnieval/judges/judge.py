"""The judge stage for one task: plan the calls, ask the judge model, parse, check, retry, combine.

Every call ends with a verdict or a reason; a sample whose calls do not all yield an in-range verdict
gets ``value=None`` (the runner records it as ``judge_failed``), never a score.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from omnieval.backends import Backend
from omnieval.errors import BackendError, ConfigError
from omnieval.judges.protocols import CallSpec, JudgeInput, JudgePlan, judge_protocols
from omnieval.judges.templates import JudgeTemplate, get_judge_template
from omnieval.parsers import bind_parser, check_options
from omnieval.prompts import place_media
from omnieval.prompts.templates import render_template
from omnieval.store import ResponseCache
from omnieval.types import JudgeAttempt, JudgeCall, JudgeRecord, JudgeSpec, Message, Request, Response, Sample

__all__ = ["FetchFn", "Judge", "direct_fetch"]

FetchFn = Callable[[Request, str], Awaitable[Response]]
"""``(request, fingerprint) -> response``; errors come back as ``Response.error``, never raised."""


def direct_fetch(backend: Backend, cache: ResponseCache | None = None) -> FetchFn:
    """A plain fetch (cache, then one backend call) for programmatic use; the runner passes its own
    fetcher with transport retries, rate limiting and the circuit breaker instead."""

    async def fetch(request: Request, fingerprint: str) -> Response:
        if cache is not None and backend.caches_responses:
            hit = cache.get(fingerprint)
            if hit is not None:
                return hit
        started = time.perf_counter()
        try:
            response = await backend.generate(request)
        except BackendError as exc:
            return Response.from_error(str(exc))
        except Exception as exc:  # a backend bug is this call's error, not a crash
            return Response.from_error(f"{type(exc).__name__}: {exc}")
        if response.latency_s is None:
            response = response.model_copy(update={"latency_s": time.perf_counter() - started})
        if cache is not None and backend.caches_responses and response.error is None:
            cache.put(fingerprint, response)
        return response

    return fetch


@dataclass
class Judge:
    """A task's judge bound to a judge backend: ``await judge.judge(sample, question=, answer=,
    targets=)``."""

    task: str
    spec: JudgeSpec
    backend: Backend
    fetch: FetchFn | None = None
    _protocol: Callable[..., JudgePlan] = field(init=False, repr=False)
    _parse: Callable[[str, Sample], Any] = field(init=False, repr=False)
    _template: JudgeTemplate | None = field(init=False, repr=False, default=None)
    _version: str = field(init=False, repr=False, default="")

    def __post_init__(self) -> None:
        where = f"task {self.task!r} judge"
        self._protocol = judge_protocols.get(self.spec.protocol.name)
        check_options(
            self._protocol,
            self.spec.protocol.options,
            what=f"{where} protocol {self.spec.protocol.name!r}",
            n_positional=1,
        )
        self._parse = bind_parser(self.spec.parser)
        if self.spec.template is not None:
            self._template = get_judge_template(self.spec.template)
        elif not self.backend.classifies:
            raise ConfigError(
                f"{where}: {self.backend.spec!r} is a generative judge but the task's judge names no prompt "
                "template (judge.template); only a classifier judge needs none"
            )
        if self.fetch is None:
            self.fetch = direct_fetch(self.backend)

    @property
    def name(self) -> str:
        return self.backend.spec

    @property
    def version(self) -> str:
        """Hash of everything that decides a verdict: model, protocol, template text, parser, scale,
        decoding."""
        if not self._version:
            self._version = self._compute_version()
        return self._version

    def _compute_version(self) -> str:
        body = {
            "judge": self.backend.spec,
            "spec": self.spec.model_dump(mode="json", exclude={"model", "derived"}),
            "template": self._template.ref + ":" + self._template.digest if self._template else None,
            "classifier": self.backend.classifies,
            "identity": self.backend.identity(),
        }
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
        return f"{self.backend.spec}#{digest}"

    def describe(self) -> dict[str, Any]:
        """What the manifest and results record about this judge."""
        return {
            "judge": self.backend.spec,
            "version": self.version,
            "key": self.spec.key,
            "protocol": self.spec.protocol.model_dump(mode="json"),
            "template": self._template.ref if self._template else None,
            "parser": self.spec.parser.model_dump(mode="json"),
            "scale": list(self.spec.scale),
            "mode": "classifier" if self.backend.classifies else "generative",
            "backend": self.backend.describe(),
        }

    async def judge(
        self, sample: Sample, *, question: str, answer: str, targets: tuple[Any, ...]
    ) -> JudgeRecord:
        """Judge one sample; never raises for judge-side problems (they become the record's reason)."""
        inp = JudgeInput(sample, question, answer, tuple(str(t) for t in targets if t not in (None, "")))
        plan = self._protocol(inp, **self.spec.protocol.options)
        calls = await asyncio.gather(
            *(self._call(sample, c, self._template) for c in self._expand(plan.calls))
        )
        return self._record(plan, list(calls), question)

    def _expand(self, calls: tuple[CallSpec, ...]) -> list[tuple[str, CallSpec, str | None]]:
        """Each call with its classifier text; an over-long classifier input becomes two truncations."""
        out: list[tuple[str, CallSpec, str | None]] = []
        for call in calls:
            if not self.backend.classifies:
                out.append((call.label, call, None))
                continue
            text = self.backend.sep_token().join(call.pieces)
            pieces = [text]
            if call.truncate is not None:
                pieces = self.backend.truncations(text, max_tokens=call.truncate[0], offset=call.truncate[1])
            if len(pieces) == 1:
                out.append((call.label, call, pieces[0]))
            else:
                out.extend(
                    (f"{call.label}:{side}", call, piece)
                    for side, piece in zip(("right", "left"), pieces, strict=False)
                )
        return out

    def _request(
        self, sample: Sample, call: CallSpec, template: JudgeTemplate | None, text: str | None
    ) -> Request:
        if text is not None:
            messages: tuple[Message, ...] = (Message(role="user", content=text),)
            return Request(
                task=self.task,
                sample_id=sample.id,
                messages=messages,
                prompt=text,
                kind="classify",
                generation=self.spec.generation,
            )
        assert template is not None
        user = render_template(template.user, **call.variables)
        msgs = (
            []
            if template.system is None
            else [Message(role="system", content=render_template(template.system, **call.variables))]
        )
        msgs.append(Message(role="user", content=place_media(user, call.media, blind=False)))
        return Request(
            task=self.task, sample_id=sample.id, messages=tuple(msgs), generation=self.spec.generation
        )

    async def _call(
        self, sample: Sample, item: tuple[str, CallSpec, str | None], template: JudgeTemplate | None
    ) -> JudgeCall:
        label, call, text = item
        request = self._request(sample, call, template, text)
        base = request.fingerprint(backend=self.backend.provider, model=self.backend.model)
        attempts: list[JudgeAttempt] = []
        assert self.fetch is not None
        for attempt in range(1 + self.spec.retries):
            fingerprint = (
                base if attempt == 0 else hashlib.sha256(f"{base}:retry{attempt}".encode()).hexdigest()
            )
            response = await self.fetch(request, fingerprint)
            result = self._verdict(sample, response)
            attempts.append(result)
            if result.verdict is not None or response.error is not None:
                break  # a verdict, or an endpoint failure the fetcher already retried
        return JudgeCall(label=label, attempts=tuple(attempts), verdict=attempts[-1].verdict)

    def _verdict(self, sample: Sample, response: Response) -> JudgeAttempt:
        meta: dict[str, Any] = {
            "cached": response.cached,
            "latency_s": response.latency_s,
            "usage": response.usage,
            "cost_usd": response.cost_usd,
        }
        if "probs" in response.extra:
            meta["extra"] = {"probs": response.extra["probs"]}
        if response.error is not None:
            return JudgeAttempt(error=f"judge call failed: {response.error}", **meta)
        raw = response.raw_text or response.text
        if response.finish_reason == "length" and not response.text.strip():
            return JudgeAttempt(raw=raw, error="judge output cut off at max_tokens before a verdict", **meta)
        try:
            parsed = self._parse(response.text, sample)
        except Exception as exc:  # a parser bug is this attempt's failure, named
            return JudgeAttempt(
                raw=raw,
                error=f"judge parser {self.spec.parser.name!r} failed: {type(exc).__name__}: {exc}",
                **meta,
            )
        if not parsed.ok:
            return JudgeAttempt(raw=raw, error=f"unparseable verdict: {parsed.reason}", **meta)
        value = parsed.value
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return JudgeAttempt(raw=raw, error=f"verdict {value!r} is not a number", **meta)
        low, high = self.spec.scale
        if not low <= value <= high:
            return JudgeAttempt(
                raw=raw, error=f"verdict {value} is outside the scale [{low:g}, {high:g}]", **meta
            )
        return JudgeAttempt(raw=raw, verdict=float(value), **meta)

    def _record(self, plan: JudgePlan, calls: list[JudgeCall], question: str) -> JudgeRecord:
        base: dict[str, Any] = {
            "judge": self.backend.spec,
            "version": self.version,
            "key": self.spec.key,
            "calls": tuple(calls),
            "question": question,
        }
        failed = [c for c in calls if c.verdict is None]
        if not calls:
            return JudgeRecord(reason="the judge protocol planned no call for this sample", **base)
        if failed:
            why = "; ".join(
                f"{c.label}: {c.attempts[-1].error if c.attempts else 'no attempt'}" for c in failed
            )
            tries = max(len(c.attempts) for c in failed)
            return JudgeRecord(reason=f"no valid verdict after {tries} attempt(s) ({why})", **base)
        verdicts = [c.verdict for c in calls if c.verdict is not None]
        combined = _COMBINE[plan.combine](verdicts)
        value = combined / self.spec.value_divisor
        if not 0.0 <= value <= 1.0:
            reason = (
                f"judge value {value} (verdict {combined} / {self.spec.value_divisor:g}) is outside [0, 1]"
            )
            return JudgeRecord(reason=reason, **base)
        return JudgeRecord(value=value, **base)


_COMBINE: dict[str, Callable[[list[float]], float]] = {
    "max": max,
    "min": min,
    "mean": lambda v: sum(v) / len(v),
    "first": lambda v: v[0],
}
