"""Re-judging stored responses with another judge (``omnieval rejudge``): no call to the model under test.

Only judge-derived values change: each judged sample's judge key, ``judge.metrics`` keys, state
(``ok`` ↔ ``judge_failed``), score and judge record. Plain metrics, responses and every other state
stay as they were. The judge cache (``RUN/judge_cache.sqlite``) makes re-judging with the same judge free.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from omnieval.prompts import build_request
from omnieval.runner.config import JudgeConfig, RunConfig
from omnieval.runner.context import pick_demos
from omnieval.runner.judging import JudgeStage, judge_question
from omnieval.runner.scoring import Scorer
from omnieval.sources import Task
from omnieval.types import Sample, SampleResult

__all__ = ["rejudge_records"]


def _question(
    task: Task,
    sample: Sample,
    position: int,
    config: RunConfig,
    history: list[tuple[Sample, str]],
    pool: list[Sample],
) -> str:
    """The rendered prompt as the run built it (for records judged before without a stored question)."""
    spec = task.spec
    generation = spec.generation.model_copy(
        update={k: v for k, v in config.generation.items() if v is not None}
    )
    request = build_request(
        sample,
        spec,
        position=position,
        seed=config.seed,
        generation=generation,
        media_policy=spec.media,
        history=history,
        blind=config.blind,
        demos=pick_demos(pool, n=spec.prompt.fewshot.n, sample_id=sample.id, seed=config.seed),
    )
    return judge_question(request)


async def _rejudge_task(
    task: Task, records: list[SampleResult], stage: JudgeStage, config: RunConfig
) -> list[SampleResult]:
    judge = stage.for_task(task.name)
    if judge is None or task.spec.judge is None:
        return records
    scorer = Scorer.for_task(task.spec, judged=True)
    wanted = {r.sample_id for r in records}
    positions: dict[str, tuple[int, Sample]] = {}
    for position, sample in enumerate(task.iter_samples()):
        if sample.id in wanted:
            positions[sample.id] = (position, sample)
    pool = list(task.iter_demos()) if task.iter_demos is not None and task.spec.prompt.fewshot.n else []
    answers = {(r.sample_id, r.repeat): r.response or "" for r in records}

    async def one(result: SampleResult) -> SampleResult:
        found = positions.get(result.sample_id)
        if found is None:
            return result
        position, sample = found
        if result.state not in ("ok", "judge_failed") or not result.scored:
            zeros = {k: 0.0 for k in scorer.judge_keys} if result.scored else {}
            return result.model_copy(update={"metrics": {**zeros, **result.metrics}, "judge": None})
        question = (
            result.judge.question if result.judge is not None and result.judge.question is not None else None
        )
        if question is None:
            history = _history(records, sample, result.repeat, answers, positions)
            question = _question(task, sample, position, config, history, pool)
        base = result.model_copy(update={"state": "ok", "reason": None})
        verdict = await judge.judge(
            sample, question=question, answer=result.response or "", targets=result.targets
        )
        return scorer.with_judgement(sample, base, verdict)

    return list(await asyncio.gather(*(one(r) for r in records)))


def _history(
    records: list[SampleResult],
    sample: Sample,
    repeat: int | None,
    answers: dict[tuple[str, int | None], str],
    positions: dict[str, tuple[int, Sample]],
) -> list[tuple[Sample, str]]:
    """The chain's earlier turns with the answers of the same repeat (a chain repeats whole)."""
    if sample.chain is None:
        return []
    earlier = [
        positions[r.sample_id][1]
        for r in records
        if r.sample_id in positions
        and r.repeat == repeat
        and r.chain == sample.chain
        and (r.chain_index or 0) < (sample.chain_index or 0)
    ]
    earlier.sort(key=lambda s: s.chain_index or 0)
    return [(s, answers[(s.id, repeat)]) for s in earlier]


async def rejudge_records(
    run_dir: Path, config: RunConfig, tasks: list[Task], records: list[SampleResult], judge: JudgeConfig
) -> tuple[list[SampleResult], dict[str, Any]]:
    """Records re-judged by ``judge`` (other tasks' records untouched) and the judges' descriptions."""
    stage = JudgeStage(
        tasks=tasks,
        judge=judge,
        retry=config.retry,
        breaker_threshold=config.breaker_threshold,
        cache_path=run_dir / "judge_cache.sqlite" if config.use_cache else None,
    )
    try:
        by_task: dict[str, list[SampleResult]] = {}
        for record in records:
            by_task.setdefault(record.task, []).append(record)
        out: list[SampleResult] = []
        for task in tasks:
            out.extend(await _rejudge_task(task, by_task.pop(task.name, []), stage, config))
        for rest in by_task.values():
            out.extend(rest)
        return out, stage.describe()
    finally:
        await stage.aclose()
