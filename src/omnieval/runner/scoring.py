"""Response → SampleResult: state, extraction, metrics, score. Used by runs and by re-scoring."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from omnieval.metrics import BoundMetric, bind_metric
from omnieval.parsers import bind_parser
from omnieval.prompts import gold_answers
from omnieval.runner.reasoning import split_reasoning
from omnieval.types import JudgeRecord, ParseOutcome, Response, Sample, SampleResult, ScoringInput, TaskSpec

__all__ = ["Scorer"]


@dataclass(frozen=True)
class Scorer:
    """A task's parser and metrics, bound once."""

    spec: TaskSpec
    parse: Callable[[str, Sample], ParseOutcome]
    metrics: tuple[BoundMetric, ...]
    judge_metrics: tuple[BoundMetric, ...] = ()
    judged: bool = False
    """True when this run judges the task: the judge's key and ``judge.metrics`` join the metric keys."""

    @classmethod
    def for_task(cls, spec: TaskSpec, *, judged: bool = False) -> Scorer:
        judge_metrics = tuple(bind_metric(m) for m in spec.judge.metrics) if judged and spec.judge else ()
        return cls(
            spec, bind_parser(spec.parser), tuple(bind_metric(m) for m in spec.metrics), judge_metrics, judged
        )

    @property
    def judge_keys(self) -> tuple[str, ...]:
        """Keys whose values come from the judge (empty when the task is not judged in this run)."""
        if not self.judged or self.spec.judge is None:
            return ()
        return tuple(dict.fromkeys((self.spec.judge.key, *(k for m in self.judge_metrics for k in m.keys))))

    @functools.cached_property
    def metric_keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*(k for m in self.metrics for k in m.keys), *self.judge_keys)))

    @functools.cached_property
    def failed_metrics(self) -> dict[str, float]:
        """What a sample in a non-ok state gets under each key: the worst value, so a failure never
        counts as a match (0 where higher is better; 1 under an error rate such as CER or WER)."""
        worst = {k: 1.0 for m in self.metrics if not m.definition.higher_is_better for k in m.keys}
        return {k: worst.get(k, 0.0) for k in self.metric_keys}

    def needs_judge(self, result: SampleResult) -> bool:
        """Scored samples whose text was scored are judged: ``ok`` ones, and ``truncated`` ones when the
        task scores truncated text (MERA judges whatever came back); other states keep their zeros."""
        if not self.judged or not result.scored:
            return False
        return result.state == "ok" or (result.state == "truncated" and self.spec.truncated == "score_text")

    def with_judgement(self, sample: Sample, result: SampleResult, record: JudgeRecord) -> SampleResult:
        """The sample after its judge: judge-derived values added, or ``judge_failed`` with them left out."""
        plain = {k: v for k, v in result.metrics.items() if k not in self.judge_keys}
        if (
            record.value is None
        ):  # a plain score metric keeps its value; a judge-derived one has none (0.0 stands in)
            score = plain.get(self.spec.score_key, 0.0)
            return result.model_copy(
                update={
                    "state": "judge_failed",
                    "reason": record.reason,
                    "score": score,
                    "metrics": plain,
                    "judge": record,
                }
            )
        answer = result.response or ""
        parsed = self.parse(answer, sample)
        inp = ScoringInput(
            response=answer,
            prediction=parsed.value if parsed.ok else parsed.fallback,
            parsed=parsed.ok,
            targets=result.targets,
            choices=sample.choices,
            metadata=sample.metadata,
            judgements={record.key: record.value},
            episode=result.episode,
            audio=result.audio,
        )
        values = {**plain, record.key: record.value}
        for metric in self.judge_metrics:
            try:
                values.update(metric(inp))
            except Exception as exc:  # a metric must never take the run down: the sample says why
                reason = f"judge metric {metric.ref.name!r} failed: {type(exc).__name__}: {exc}"
                return result.model_copy(
                    update={"state": "error", "reason": reason, "score": 0.0, "judge": record}
                )
        bad = {k: v for k, v in values.items() if not 0.0 <= v <= 1.0}
        if bad:
            return result.model_copy(
                update={
                    "state": "error",
                    "reason": f"metric values outside [0, 1]: {bad}",
                    "score": 0.0,
                    "judge": record,
                }
            )
        score = values.get(self.spec.score_key, 0.0)
        return result.model_copy(update={"metrics": values, "score": score, "judge": record})

    def score(self, sample: Sample, response: Response, **record: Any) -> SampleResult:
        """Decide the sample's one state and its score (0 for every non-ok state)."""
        base = self._base(sample, response, record)
        if response.error is not None:
            return SampleResult(state="error", reason=response.error, **base)
        answer, reasoning = split_reasoning(response.text)
        if reasoning is not None or response.reasoning is not None:
            base.update(reasoning=reasoning or response.reasoning, raw_response=response.text)
        base["response"] = answer
        episode = base.get("episode")
        if episode is not None and episode.end not in ("submitted", "final_answer"):
            return self._truncated(sample, answer, base, reason=episode.end_reason)
        if response.finish_reason == "length":
            return self._truncated(sample, answer, base)
        if not sample.has_targets:
            return SampleResult(state="ok", reason="prediction only: no gold answer", **base)
        return self._judge(sample, answer, base)

    def _truncated(
        self, sample: Sample, answer: str, base: dict[str, Any], *, reason: str = "generation hit max_tokens"
    ) -> SampleResult:
        """State ``truncated`` either way (an agent episode: a limit ended it); the task's ``truncated``
        rule says whether the text (or the final state) is scored."""
        if self.spec.truncated == "zero" or not sample.has_targets:
            return SampleResult(state="truncated", reason=reason, **base)
        judged = self._judge(sample, answer, base)
        if judged.state == "error":
            return judged
        why = f"{reason}; scored on the text returned (task rule truncated: score_text)"
        if judged.state == "parse_failed":
            why += f"; {judged.reason}"
        return judged.model_copy(update={"state": "truncated", "reason": why})

    def _base(self, sample: Sample, response: Response, record: dict[str, Any]) -> dict[str, Any]:
        base: dict[str, Any] = {
            "task": self.spec.name,
            "sample_id": sample.id,
            "response": response.text,
            "targets": tuple(gold_answers(sample, self.spec)),
            "finish_reason": response.finish_reason,
            "usage": response.usage,
            "latency_s": response.latency_s,
            "stream": response.stream,
            "cached": response.cached,
            "cost_usd": response.cost_usd,
            "chain": sample.chain,
            "chain_index": sample.chain_index,
            "media_policy": response.media,
            "metadata": _json_safe(sample.metadata),
            "metrics": dict(self.failed_metrics),
            "scored": sample.has_targets,
            "intermediates": tuple(response.extra.get("cascade") or ()),
        }
        if "episode" in response.extra:
            base["episode"] = response.extra["episode"]
        base.update(record)
        return base

    def _judge(self, sample: Sample, answer: str, base: dict[str, Any]) -> SampleResult:
        try:
            parsed = self.parse(answer, sample)
        except Exception as exc:  # a parser bug must not take the run down: the sample says why
            reason = f"parser {self.spec.parser.name!r} failed: {type(exc).__name__}: {exc}"
            return SampleResult(state="error", reason=reason, **base)
        if not parsed.ok:
            return SampleResult(state="parse_failed", reason=parsed.reason, **base)
        inp = ScoringInput(
            response=answer,
            prediction=parsed.value,
            targets=base["targets"],
            choices=sample.choices,
            metadata=sample.metadata,
            episode=base.get("episode"),
            audio=base.get("audio"),
        )
        values: dict[str, float] = {}
        for metric in self.metrics:
            try:
                values.update(metric(inp))
            except Exception as exc:  # a metric must never take the run down: the sample says why
                reason = f"metric {metric.ref.name!r} failed: {type(exc).__name__}: {exc}"
                return SampleResult(state="error", reason=reason, extracted=_json_safe(parsed.value), **base)
        bad = {k: v for k, v in values.items() if not 0.0 <= v <= 1.0}
        if bad:
            return SampleResult(state="error", reason=f"metric values outside [0, 1]: {bad}", **base)
        base["metrics"] = values
        if parsed.how.startswith("fallback"):
            base["metadata"] = {**base["metadata"], "parse_fallback": parsed.how}
        if parsed.metadata:
            base["metadata"] = {**base["metadata"], **_json_safe(parsed.metadata)}
        score = values.get(self.spec.score_key, 0.0)
        return SampleResult(state="ok", score=score, extracted=_json_safe(parsed.value), **base)


_PLAIN = (str, int, float, bool, type(None))


def _json_safe(value: Any) -> Any:
    """Drop bytes (embedded media) so records stay small JSON."""
    if type(value) in _PLAIN:  # most values: checked first, by exact type (a subclass goes on below)
        return value
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
