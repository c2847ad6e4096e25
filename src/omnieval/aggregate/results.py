"""Per-task results from stored records only: counts by state, metric aggregates, bootstrap CI."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from omnieval.aggregate.agent import AgentAccumulator
from omnieval.aggregate.bootstrap import bootstrap_ci, resampled_means
from omnieval.aggregate.causes import CauseCounter
from omnieval.aggregate.repeats import RepeatAccumulator, clustered_bootstrap_ci
from omnieval.metrics import BoundMetric, bind_metric
from omnieval.sources import Task
from omnieval.store import record_cost
from omnieval.textkit.chat_tokens import template_token
from omnieval.textkit.ordering import natural_key
from omnieval.types import STATES, SampleResult
from omnieval.types.files import results_model
from omnieval.types.results import (
    CauseCount,
    JudgeSummary,
    LatencySummary,
    RepeatSummary,
    ResultsFile,
    RunCost,
    TaskCost,
    TaskResults,
    VariantScore,
)
from omnieval.types.versions import RESULTS_SCHEMA_VERSION

__all__ = ["bootstrap_ci", "compute_results", "resampled_means", "sample_has_score", "task_results"]


def sample_has_score(record: dict[str, Any], score_key: str | None) -> bool:
    """Whether a stored sample counts in its task's score. A ``judge_failed`` sample keeps its plain
    metrics: it counts when the score metric is one of them (the metric's mean already includes it),
    and has no value when the score is judge-derived (no verdict is not a 0)."""
    if record.get("state") != "judge_failed":
        return True
    return score_key is not None and score_key in (record.get("metrics") or {})


class _TaskAccumulator:
    """Streams one task's records, keeping only what aggregation needs.

    It reads each record as the dict its ``samples.jsonl`` line parses to, not as a
    :class:`~omnieval.types.SampleResult`: every record was a ``SampleResult`` when the runner wrote it,
    and validating each again here costs ≈ 6 µs a record on the run's critical path (the end of
    ``omnieval run``; 12 ms of a 2,000-sample run, measured against the harness benchmark's 1.0 s
    budget). Only the records a non-mean aggregation needs are validated (``kept``)."""

    def __init__(self, task: Task, *, judged: bool = False) -> None:
        self.task = task
        self.run_judged = judged
        """The run had a judge for this task (even if no sample could be judged, e.g. hidden answers)."""
        self.metrics: list[BoundMetric] = [bind_metric(m) for m in task.spec.metrics]
        judge = task.spec.judge
        self.judge_metrics: list[BoundMetric] = [bind_metric(m) for m in judge.metrics] if judge else []
        self.judged = 0
        self.judges: Counter[str] = Counter()
        """Judge versions seen in the records (a rejudge replaces them all)."""
        self.states: Counter[str] = Counter()
        self.values: dict[str, list[float]] = defaultdict(list)
        self.scores: list[float] = []
        self.by_variant: dict[str, list[float]] = defaultdict(list)
        self.by_cell: dict[tuple[str, str], list[int]] = defaultdict(list)
        """Per (breakdown key, value): the indexes of its samples in ``scores`` (and ``kept``)."""
        self.kept: list[SampleResult] = []
        self.need_records = any(m.ref.aggregate != "mean" for m in [*self.metrics, *self.judge_metrics])
        self.prediction_only = 0
        self.reasons: dict[str, list[str]] = defaultdict(list)
        """Up to three distinct reasons per non-ok state, so a report says why without opening samples."""
        self.causes = CauseCounter()
        self.unscored_ids: list[str] = []
        """Up to five ids of samples left unscored (no gold answer), so a report can name them."""
        self.fallbacks = 0
        self.blind = 0
        self.recognition: Counter[str] = Counter()
        """A cascade's media recognised, and how many came out empty (kept, never dropped)."""
        self.repeats = RepeatAccumulator()
        self.agent = AgentAccumulator()
        self.cost = {"model_usd": 0.0, "judge_usd": 0.0, "priced": 0, "unpriced": 0}
        self.leaks = 0
        self.leak_example: str | None = None
        self.timing = _StreamTimes()

    def _add_answer(self, record: dict[str, Any]) -> None:
        """Chat-template tokens in the answer, and a streamed answer's timing."""
        token = template_token(record.get("raw_response") or record.get("response"))
        if token is not None:
            self.leaks += 1
            self.leak_example = self.leak_example or token
        if record.get("stream") and not record.get("cached"):
            self.timing.add(record["stream"], record.get("latency_s"))

    def _add_cost(self, record: dict[str, Any]) -> None:
        model = record.get("cost_usd")
        self.cost["priced" if model is not None else "unpriced"] += 1
        self.cost["model_usd"] += float(model or 0.0)
        self.cost["judge_usd"] += record_cost(record) - float(model or 0.0)

    def add(self, record: dict[str, Any]) -> None:
        self.states[record["state"]] += 1
        self._add_cost(record)
        if "episode" in record:
            self.agent.add(record)
        self._add_answer(record)
        for step in record.get("intermediates") or ():
            self.recognition[f"{step.get('kind')}"] += 1
            self.recognition[f"{step.get('kind')}_empty"] += not str(step.get("text") or "").strip()
        reason = record.get("reason")
        kept = self.reasons[record["state"]]
        if record["state"] != "ok" and reason and str(reason)[:300] not in kept:
            kept[:] = sorted([*kept, str(reason)[:300]])[
                :3
            ]  # the 3 smallest: the same whatever the record order
        self.causes.add(record["state"], reason)
        if not record.get("scored", True):  # hidden answers: whatever the state, never scored as 0
            self.prediction_only += 1
            self.unscored_ids = sorted([*self.unscored_ids, str(record["sample_id"])], key=natural_key)[:5]
            return
        judge = record.get("judge")
        if judge:
            self.judges[str(judge.get("version"))] += 1
            self.judged += judge.get("value") is not None
        metrics = record.get("metrics") or {}
        for key, value in metrics.items():
            self.values[key].append(float(value))
        score = self._sample_score(record, metrics)
        if score is None:  # judge_failed with a judge-derived score: no value, never a score, only a count
            if self.need_records:
                self.kept.append(SampleResult.model_validate(record))
            return
        for key in self.task.spec.breakdowns:
            self.by_cell[(key, str((record.get("metadata") or {}).get(key)))].append(len(self.scores))
        self.scores.append(score)
        if record.get("repeat") is not None:
            self.repeats.add(str(record["sample_id"]), int(record["repeat"]), score, record.get("extracted"))
        if record.get("variant") is not None:
            self.by_variant[str(record["variant"])].append(score)
        if (record.get("metadata") or {}).get("parse_fallback"):
            self.fallbacks += 1
        if self.need_records:
            self.kept.append(SampleResult.model_validate(record))

    def _sample_score(self, record: dict[str, Any], metrics: dict[str, Any]) -> float | None:
        """The sample's share of the task score, in the score, its CI and its variant alike."""
        if not sample_has_score(record, self.task.spec.score_key):
            return None
        if record["state"] != "judge_failed":
            return float(record.get("score", 0.0))
        return float(metrics[self.task.spec.score_key])

    def aggregate(self) -> dict[str, float]:
        out: dict[str, float] = {}
        judge_by_key = {k: m for m in self.judge_metrics for k in m.keys} if self.judges else {}
        # judged run: the judge's metrics replace the plain ones of the same key
        by_key = {k: m for m in self.metrics for k in m.keys} | judge_by_key
        for key, values in self.values.items():
            metric = by_key.get(key)
            if metric is None or metric.ref.aggregate == "mean":
                out[key] = math.fsum(values) / len(values) if values else 0.0
            elif key in judge_by_key:  # judge_failed samples come in as NaN: a group holding one is left out
                value = metric.aggregate(*self._judge_rows(key))
                if not math.isnan(value):
                    out[key] = value
            else:
                out[key] = metric.aggregate(values, [r for r in self.kept if key in r.metrics])
        judge = self.task.spec.judge
        for key, parts in judge.derived.items() if judge and self.judges else ():
            if all(p in out for p in parts):
                out[key] = sum(out[p] for p in parts) / len(parts)
        return out

    def _judge_rows(self, key: str) -> tuple[list[float], list[SampleResult]]:
        """A judge-derived key's per-sample values, ``judge_failed`` samples as NaN, and their records."""
        rows = [r for r in self.kept if key in r.metrics or r.state == "judge_failed"]
        return [r.metrics.get(key, math.nan) for r in rows], rows

    def _group_counts(self) -> dict[str, Any]:
        """How many groups a group-aggregated judge metric (ruHHH Group JS) counted and left out (a group
        holding a ``judge_failed`` sample is undecided); empty for a task without one or not judged. A
        derived key (ruHHH FS, recomputed from Group EM and Group JS) is not one of them."""
        judge = self.task.spec.judge
        derived = set(judge.derived) if judge and self.judges else set()
        for metric in (m for m in self.judge_metrics if self.judges and m.ref.key not in derived):
            counts = metric.group_counts(*self._judge_rows(metric.ref.key))
            if counts is not None:
                return {
                    "groups_key": metric.ref.key,
                    "groups_judged": counts[0],
                    "groups_left_out": counts[1],
                }
        return {}

    def _metric_versions(self) -> dict[str, str]:
        used = [*self.metrics, *(self.judge_metrics if self.judges else [])]
        return {k: f"{m.definition.name}@{m.definition.version}" for m in used for k in m.keys}

    def _score_unjudged(self, metrics: dict[str, float]) -> bool:
        """The task's score is judge-derived, the run judged it, yet no sample (or whole group) has a
        judge value, all ``judge_failed``: the task is unscored (``scored: false``, placeholders),
        never scored 0."""
        judge = self.task.spec.judge
        if judge is None or not self.judges or self.task.spec.score_key in metrics:
            return False
        return self.task.spec.score_key in self._judge_keys()

    def _judge_keys(self) -> list[str]:
        judge = self.task.spec.judge
        return [judge.key, *(k for m in self.judge_metrics for k in m.keys), *judge.derived] if judge else []

    def _judge_block(self, *, unjudged: bool = False) -> JudgeSummary | None:
        """How the task's judge values were made (``None`` for tasks without a judge)."""
        judge = self.task.spec.judge
        if judge is None:
            return None
        derived = {k: ", ".join(parts) for k, parts in judge.derived.items()}
        groups = self._group_counts()
        if unjudged:
            note = (
                "no sample (or whole group) has a judge value, every one is judge_failed: judge-derived "
                "values and the "
                "task score are not computed (score null, metric 0.0 placeholders, as for hidden answers; "
                "scored: false)"
            )
        elif self.judges:
            note = (
                "judge_failed samples have no judge value: judge-derived metrics average the judged samples"
            )
            if groups:
                note += (
                    f"; {groups['groups_key']} counts only groups without one (groups_judged, "
                    "groups_left_out)"
                )
        else:
            note = (
                "not judged in this run (no --judge and no default judge model): judge-derived values "
                "not computed"
            )
        return JudgeSummary(
            judged=bool(self.judges) or self.run_judged,
            key=judge.key,
            versions=dict(self.judges),
            n_judged=self.judged,
            judge_failed=self.states.get("judge_failed", 0),
            derived={k: f"mean({v})" for k, v in derived.items()} if self.judges else {},
            **groups,
            note=note,
        )

    def _ci(self) -> tuple[float, float] | None:
        """Bootstrap CI of a mean score; none for scores aggregated otherwise (groups, circular)."""
        score_metric = next((m for m in self.metrics if self.task.spec.score_key in m.keys), None)
        if score_metric is not None and score_metric.ref.aggregate != "mean":
            return None
        if self.repeats:  # a sample's repeats are not independent: resample samples, not records
            return clustered_bootstrap_ci(self.repeats.clusters())
        return bootstrap_ci(sorted(self.scores))  # record order (completion order) must not matter

    def _variants(self) -> dict[str, VariantScore]:
        """Mean per-sample score for each prompt variant (prompt sensitivity), when there are several."""
        if len(self.by_variant) < 2:
            return {}
        return {
            v: VariantScore(n=len(xs), score=math.fsum(xs) / len(xs))
            for v, xs in sorted(self.by_variant.items())
        }

    def _breakdowns(self) -> dict[str, Any]:
        """Each breakdown value's score: the mean of its samples' scores, or the score metric's own
        aggregation over them (CircularEval groups, answered-only means) when it is not a mean."""
        if not self.by_cell:
            return {}
        metric = next((m for m in self.metrics if self.task.spec.score_key in m.keys), None)
        grouped = metric is not None and metric.ref.aggregate != "mean" and len(self.kept) == len(self.scores)
        out: dict[str, dict[str, VariantScore]] = {k: {} for k in self.task.spec.breakdowns}
        for (key, value), indexes in sorted(self.by_cell.items(), key=lambda kv: natural_key(kv[0][1])):
            values = [self.scores[i] for i in indexes]
            if grouped and metric is not None:
                score = metric.aggregate(values, [self.kept[i] for i in indexes])
            else:
                score = math.fsum(values) / len(values)
            out[key][value] = VariantScore(n=len(indexes), score=score)
        return {"breakdowns": out}

    def _repeat_options(self) -> dict[str, Any]:
        spec = self.task.spec.repeats
        return {"pass_k": spec.pass_k if spec else (), "threshold": spec.threshold if spec else 1.0}

    def result(self) -> TaskResults:
        metrics = self.aggregate()
        if self.repeats:
            metrics |= self.repeats.metrics(**self._repeat_options())
        spec = self.task.spec
        n_scored = sum(self.states.values()) - self.prediction_only
        if n_scored == 0:  # hidden answers: 0.0 metric placeholders (every key present), scored=False
            placeholders = [k for m in self.metrics for k in m.keys]
            if self.run_judged and self.task.spec.judge is not None:
                placeholders += [self.task.spec.judge.key, *(k for m in self.judge_metrics for k in m.keys)]
            metrics = dict.fromkeys(placeholders, 0.0) | metrics
        unjudged = self._score_unjudged(metrics)
        if unjudged:  # every judge key present: 0.0 placeholders under scored=False, never a score
            metrics = metrics | {k: 0.0 for k in self._judge_keys() if k not in metrics}
        scored = n_scored > 0 and not unjudged
        score = (
            metrics.get(spec.score_key, math.fsum(self.scores) / len(self.scores) if self.scores else 0.0)
            if scored
            else None  # nothing scored: no score at all, never a 0.0 that reads as one
        )
        n = sum(self.states.values())
        cost = self.cost
        optional: dict[str, Any] = (  # keys only some runs have: recognition for a cascade
            {"recognition": dict(sorted(self.recognition.items()))} if self.recognition else {}
        )
        if self.agent:  # written only for an agent task
            optional["agent"] = self.agent.summary()
        if self.leaks:  # written only when some answer holds template tokens
            optional |= {"template_leaks": self.leaks, "template_leak_example": self.leak_example}
        if self.timing.n:  # written only for a streamed run
            optional["latency"] = self.timing.summary()
        return TaskResults(
            score=score,
            n=n,
            n_scored=n_scored,
            scored=scored,
            states={s: self.states.get(s, 0) for s in STATES},
            metrics=metrics,
            score_metric=spec.score_key,
            ci95=self._ci() if scored else None,
            prediction_only=self.prediction_only,
            example_reasons={k: v for k, v in self.reasons.items() if v},
            error_causes={c: CauseCount(**row) for c, row in self.causes.table().items()},
            unscored_ids=self.unscored_ids,
            by_variant=self._variants(),
            parse_fallbacks=self.fallbacks,
            truncated_scoring=spec.truncated,
            version=spec.version,
            metric_versions=self._metric_versions(),
            judge=self._judge_block(unjudged=unjudged),
            repeats=RepeatSummary(**self.repeats.block(**self._repeat_options())) if self.repeats else None,
            cost=TaskCost(
                model_usd=cost["model_usd"],
                judge_usd=cost["judge_usd"],
                priced=int(cost["priced"]),
                unpriced=int(cost["unpriced"]),
                total_usd=cost["model_usd"] + cost["judge_usd"],
            ),
            hash=self.task.content_hash,
            modalities=tuple(spec.modalities),
            language=spec.language,
            metadata=spec.metadata,
            **optional,
            **self._breakdowns(),
        )


class _StreamTimes:
    """A task's streamed answers: time to first token, output tokens per second, whole latency."""

    def __init__(self) -> None:
        self.n = 0
        self.ttft: list[float] = []
        self.rate: list[float] = []
        self.latency: list[float] = []

    def add(self, stream: dict[str, Any], latency: Any) -> None:
        self.n += 1
        for values, value in (
            (self.ttft, stream.get("ttft_s")),
            (self.rate, stream.get("tokens_per_s")),
            (self.latency, latency),
        ):
            if isinstance(value, int | float):
                values.append(float(value))

    def summary(self) -> LatencySummary:
        ttft, rate, latency = (_percentiles(v) for v in (self.ttft, self.rate, self.latency))
        return LatencySummary(
            n=self.n,
            ttft_p50_s=ttft[0],
            ttft_p95_s=ttft[1],
            tokens_per_s_p50=rate[0],
            tokens_per_s_p95=rate[1],
            latency_p50_s=latency[0],
            latency_p95_s=latency[1],
        )


def _percentiles(values: list[float]) -> tuple[float | None, float | None]:
    """Median and 95th percentile (linear between closest ranks); ``None`` for no values."""
    if not values:
        return None, None
    ordered = sorted(values)

    def at(q: float) -> float:
        pos = q * (len(ordered) - 1)
        low = math.floor(pos)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)

    return at(0.5), at(0.95)


def task_results(
    tasks: list[Task], records: Iterable[dict[str, Any]], *, judged: Iterable[str] = ()
) -> dict[str, TaskResults]:
    """Aggregate records (streamed) into per-task result blocks, in task order."""
    judged = set(judged)
    accumulators = {t.name: _TaskAccumulator(t, judged=t.name in judged) for t in tasks}
    for record in records:
        acc = accumulators.get(record.get("task", ""))
        if acc is not None:
            acc.add(record)
    return {name: acc.result() for name, acc in accumulators.items()}


_COST_NOTE = (
    "USD by the run's price table (results of this output over all invocations; cache hits cost 0; "
    "unpriced: records whose model has no price)"
)


def _run_cost(blocks: Iterable[TaskResults]) -> RunCost:
    """The tasks' costs summed (in task order, as a ``Counter`` added them before)."""
    cost: Counter[str] = Counter()
    for block in blocks:
        if block.cost is not None:
            cost.update(block.cost.model_dump())
    return RunCost(
        model_usd=cost["model_usd"],
        judge_usd=cost["judge_usd"],
        total_usd=cost["total_usd"],
        priced=cost["priced"],
        unpriced=cost["unpriced"],
        note=_COST_NOTE,
    )


def compute_results(
    tasks: list[Task],
    records: Iterable[dict[str, Any]],
    *,
    model: str,
    extra: Mapping[str, Any] | None = None,
    judged: Iterable[str] = (),
) -> ResultsFile:
    """The whole ``results.json``, typed; ``judged`` names the tasks the run had a judge for. ``extra``
    adds the run's own facts (fields of :class:`ResultsFile`); it never overrides a value computed here
    (re-scoring passes the old document)."""
    from omnieval.version import __version__

    per_task = task_results(tasks, records, judged=judged)
    totals: Counter[str] = Counter()
    for block in per_task.values():
        totals.update(block.states)
    computed: dict[str, Any] = {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "model": model,
        "omnieval_version": __version__,
        "tasks": per_task,
        "states": {s: totals.get(s, 0) for s in STATES},
        "cost": _run_cost(per_task.values()),
    }
    facts = {k: v for k, v in (extra or {}).items() if k not in computed}  # computed values always win
    return results_model(facts | computed, source="results.json")
