"""The async pipeline: stream samples → request → (cache | backend) → score → append record.

Independent samples run concurrently (bounded by the backend's connection limit, which halves on
HTTP 429); a chain (a dialogue) runs one step at a time, each step seeing the model's own earlier
answers, while other chains and tasks run beside it. Every finished sample is appended to
``samples.jsonl`` at once, so a killed run resumes where it stopped and never writes a sample twice.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omnieval.backends import Backend, create_backend
from omnieval.backends.breaker import CircuitBreaker
from omnieval.errors import ConfigError, CostLimitReached, OmnievalError
from omnieval.hooks import NO_HOOKS, HookDispatcher
from omnieval.runner.capability import TaskPlan, check_capabilities, plan_capabilities
from omnieval.runner.config import RunConfig
from omnieval.runner.context import TaskContext
from omnieval.runner.costs import RunCosts
from omnieval.runner.execute import Fetcher, pool_size
from omnieval.runner.hearing import QUALITY_KEY, Hearing
from omnieval.runner.judging import JudgeBackendFactory, JudgeStage, judge_question, reusing_model
from omnieval.runner.limiter import AdaptiveLimiter
from omnieval.runner.prepare import Skip, prepare_request
from omnieval.runner.progress import Progress
from omnieval.runner.provider_batch import ProviderBatcher, check_batch_support
from omnieval.runner.resolve import resolve_tasks
from omnieval.runner.resume import DoneIndex, check_resumable, load_done, remove_if_unrecorded
from omnieval.runner.scoring import Scorer
from omnieval.runner.sharding import share_of
from omnieval.sources import Task, check_unique_ids
from omnieval.store import (
    RecordWriter,
    ResponseCache,
    environment_info,
    open_records,
    prefetch_environment,
    write_json,
)
from omnieval.types import GenerationConfig, MediaPolicy, Request, Response, Sample, SampleResult
from omnieval.types.request import Reasoning
from omnieval.types.versions import MANIFEST_SCHEMA_VERSION

if TYPE_CHECKING:
    from omnieval.judges import Judge

__all__ = ["RunOutcome", "run", "run_async"]


@dataclass
class RunOutcome:
    """What a finished run reports back (records are on disk, not in memory)."""

    output: Path
    tasks: list[Task]
    states: dict[str, dict[str, int]] = field(default_factory=dict)
    retries: int = 0
    backend: dict[str, Any] = field(default_factory=dict)
    judges: dict[str, Any] = field(default_factory=dict)
    """Per judged task: the judge's spec, version and backend."""
    unknown_sample_ids: tuple[str, ...] = ()
    """``--sample-ids`` that no task has (a typo would otherwise just run fewer samples)."""


@dataclass(frozen=True)
class _Item:
    ctx: TaskContext
    steps: tuple[tuple[int, Sample], ...]
    """One independent sample, or a whole chain in order."""
    repeat: int | None = None
    """Which repeated answer (a chain repeats whole, each repeat with its own history)."""


def _effective(task: Task, config: RunConfig, backend: Backend) -> tuple[GenerationConfig, MediaPolicy]:
    overrides = {k: v for k, v in config.generation.items() if v is not None}
    generation = task.spec.generation.model_copy(update=overrides)
    media = task.spec.media.model_copy(update=backend.options.media)
    return generation, media


def _selected(
    task: Task, config: RunConfig, *, found: set[str] | None = None
) -> Iterator[tuple[int, Sample]]:
    """``found`` collects the ``--sample-ids`` met, so ids no task has can be named afterwards; with
    ``--shard`` only the shard's share of the selection (:mod:`omnieval.runner.sharding`)."""
    if config.shard is None:
        yield from _unsharded(task, config, found=found)
        return
    members = shard_members(task, config)
    for position, sample in _unsharded(task, config, found=found):
        if sample.id in members:
            yield position, sample


def shard_members(task: Task, config: RunConfig) -> set[str]:
    """The ids of ``config.shard``'s share of the samples the run selects from ``task``."""
    assert config.shard is not None
    selection = (sample for _, sample in _unsharded(task, config))
    return share_of(task.name, selection, index=config.shard.index, count=config.shard.count)


def _unsharded(
    task: Task, config: RunConfig, *, found: set[str] | None = None
) -> Iterator[tuple[int, Sample]]:
    wanted = set(config.sample_ids) if config.sample_ids else None
    taken = 0
    for position, sample in task.positioned():
        if config.limit is not None and taken >= config.limit:
            return
        if wanted is not None and sample.id not in wanted:
            continue
        if wanted is not None and found is not None:  # without --sample-ids there is nothing to look up later
            found.add(sample.id)
        taken += 1
        yield position, sample


class _Runner:
    def __init__(
        self,
        config: RunConfig,
        backend: Backend,
        writer: RecordWriter,
        done: DoneIndex,
        judges: JudgeStage,
        *,
        cache_session: str | None = None,
        hooks: HookDispatcher = NO_HOOKS,
        costs: RunCosts | None = None,
        on_first_record: Callable[[], None] | None = None,
        on_sample: Callable[[Task, Sample], None] | None = None,
    ) -> None:
        self.config = config
        self.hooks = hooks
        self.on_first_record = on_first_record
        self.on_sample = on_sample
        """Sees each sample the run reads (the report's viewer keeps them instead of reading them again)."""
        self.judges = judges
        self.backend = backend
        self.writer = writer
        self.done = done
        cache = None
        if config.use_cache and backend.caches_responses:
            cache = ResponseCache(config.cache_path or config.output / "cache.sqlite", session=cache_session)
        self.cache = cache
        self.batcher: ProviderBatcher | None = None
        if config.batch:  # a whole group of requests waits on each provider batch
            self.batcher = ProviderBatcher(
                backend,
                ledger=config.output / "batches.jsonl",
                size=config.batch_api_group_size,
                poll_s=config.batch_poll_s,
            )
        self.limiter = AdaptiveLimiter(max(pool_size(backend), config.batch_pending if config.batch else 0))
        breaker = CircuitBreaker(backend.endpoint(), threshold=config.breaker_threshold)
        priced = costs.priced(config.model, role="model") if costs is not None else None
        self.fetcher = Fetcher(
            backend,
            cache=cache,
            retry=config.retry,
            limiter=self.limiter,
            breaker=breaker,
            priced=priced,
            call=self.batcher.generate if self.batcher else None,
            timeout_s=None if self.batcher else -1.0,
        )
        self.stopped: CostLimitReached | None = None
        """Set when a request could pass ``--cost-limit``: no new work starts, requests in flight finish."""
        self.progress = Progress(quiet=config.quiet)
        self.found_ids: set[str] = set()
        self.hearing = Hearing(config.output)
        """Speech recognition of spoken answers (loaded on the first one)."""

    async def items(self, contexts: list[TaskContext]) -> AsyncIterator[_Item]:
        for ctx in contexts:
            if ctx.total is not None and self.config.shard is None and self.done.count(ctx.name) >= ctx.total:
                continue  # finished earlier: no need to stream the data again (a shard's folder may hold
                # another count's records too: resumed under another --shard)
            chains: dict[str, list[tuple[int, Sample]]] = {}
            repeats = ctx.repeat_indices
            for position, sample in _selected(ctx.task, self.config, found=self.found_ids):
                if self.on_sample is not None:
                    self.on_sample(ctx.task, sample)
                if sample.chain is not None:
                    chains.setdefault(sample.chain, []).append((position, sample))
                else:
                    for repeat in repeats:
                        if not self.done.has(ctx.name, sample.id, repeat):
                            yield _Item(ctx, ((position, sample),), repeat)
                if position % 256 == 0:
                    await asyncio.sleep(0)  # let workers run while a long dataset is skipped through
            for steps in chains.values():
                ordered = tuple(sorted(steps, key=lambda s: (s[1].chain_index or 0, s[0])))
                for repeat in repeats:
                    if not all(self.done.has(ctx.name, s.id, repeat) for _, s in ordered):
                        yield _Item(ctx, ordered, repeat)

    async def process(
        self,
        ctx: TaskContext,
        sample: Sample,
        position: int,
        history: list[tuple[Sample, str]],
        repeat: int | None = None,
    ) -> tuple[SampleResult, str | None]:
        """The scored sample and the judge's question (the rendered prompt; ``None`` before rendering)."""
        try:
            sample = self._hashed(sample)
            request = prepare_request(
                ctx,
                sample,
                position=position,
                history=history,
                seed=self.config.seed,
                blind=self.config.blind,
                provider=self.backend.provider,
                modalities=self.backend.accepts(),
                repeat=repeat,
            )
        except OmnievalError as exc:
            return ctx.scorer.score(
                sample, _error(f"could not build the request: {exc}"), repeat=repeat
            ), None
        if isinstance(request, Skip):
            return self._skipped(ctx, sample, request.reason, request.variant, repeat), None
        fingerprint = request.fingerprint(backend=self.backend.fingerprint_name(), model=self.backend.model)
        if ctx.task.spec.agent is not None:
            response, audio = await self.episode(ctx, sample, request, repeat), None
        else:
            response = await self.fetcher.fetch(request, fingerprint)
            quality = QUALITY_KEY in ctx.scorer.metric_keys
            response, audio = await self.hearing.hear(request, response, quality=quality)
        result = ctx.scorer.score(
            sample, response, variant=request.variant, fingerprint=fingerprint, repeat=repeat, audio=audio
        )
        return result, judge_question(request)

    async def episode(
        self, ctx: TaskContext, sample: Sample, request: Request, repeat: int | None
    ) -> Response:
        """One agent episode: each model turn through the fetcher (cache, retries, cost), the tools in
        process. An unfinished episode is run again from its start on resume; its model turns come from
        the response cache, so it replays to the same state."""
        from omnieval.agent import environments, run_episode

        spec = ctx.task.spec.agent
        assert spec is not None
        if self.config.blind:  # a blind control: the tools cannot see the media either
            sample = sample.model_copy(update={"media": ()})
        env = environments.get(spec.environment)(sample, **spec.options)

        async def call(turn: Request) -> Response:
            return await self.fetcher.fetch(
                turn, turn.fingerprint(backend=self.backend.provider, model=self.backend.model)
            )

        stem = f"{ctx.name}-{sample.id}" + ("" if repeat is None else f"-r{repeat}")
        return await run_episode(
            call, request, env, spec, media_dir=self.config.output / "episodes", stem=stem
        )

    @staticmethod
    def _skipped(
        ctx: TaskContext, sample: Sample, reason: str, variant: str | None, repeat: int | None
    ) -> SampleResult:
        return SampleResult(
            task=ctx.name,
            sample_id=sample.id,
            state="skipped",
            reason=reason,
            variant=variant,
            metrics=dict(ctx.scorer.failed_metrics),
            chain=sample.chain,
            chain_index=sample.chain_index,
            scored=sample.has_targets,
            repeat=repeat,
        )

    def _hashed(self, sample: Sample) -> Sample:
        if not sample.media or self.config.blind:
            return sample
        from omnieval.media import fingerprint

        return sample.model_copy(update={"media": tuple(fingerprint(m) for m in sample.media)})

    def record(self, ctx: TaskContext, result: SampleResult, sample: Sample, prompt: str | None) -> None:
        if self.on_first_record is not None:
            callback, self.on_first_record = self.on_first_record, None
            callback()
        line = self.writer.write(result)
        self.hooks.record(line, prompt=prompt, media=sample.media)
        ctx.count(result)
        done = self.done.count(ctx.name) + sum(ctx.states.values())
        retries = self.fetcher.retries + self.judges.retries
        self.progress.update(ctx.name, done=done, states=dict(ctx.states), retries=retries)

    async def work(self, item: _Item) -> None:
        history: list[tuple[Sample, str]] = []
        for position, sample in item.steps:
            previous = self.done.response(item.ctx.name, sample.id, item.repeat)
            if previous is not None:
                history.append((sample, previous))
                continue
            try:
                result, question = await self.process(item.ctx, sample, position, history, item.repeat)
            except CostLimitReached as exc:
                self.stopped = self.stopped or exc  # the sample stays unfinished; a resume picks it up
                return
            history.append((sample, result.response or ""))
            judge = self.judges.for_task(item.ctx.name)
            if judge is None or question is None or not item.ctx.scorer.needs_judge(result):
                self.record(item.ctx, result, sample, question)
                continue

            async def judged(
                ctx: TaskContext = item.ctx,
                sample: Sample = sample,
                result: SampleResult = result,
                question: str = question,
                judge: Judge = judge,
            ) -> None:
                try:
                    record = await judge.judge(
                        sample, question=question, answer=result.response or "", targets=result.targets
                    )
                except (
                    CostLimitReached
                ) as exc:  # unfinished; the model's answer is in the cache for the resume
                    self.stopped = self.stopped or exc
                    return
                self.record(ctx, ctx.scorer.with_judgement(sample, result, record), sample, question)

            await self.judges.submit(judged)

    async def drive(self, contexts: list[TaskContext]) -> None:
        """Producer and workers; the first failure of either cancels the rest (never a hang)."""
        queue: asyncio.Queue[_Item | None] = asyncio.Queue(
            maxsize=min(4 * self.limiter.maximum, self.limiter.maximum + 1024)
        )
        n_workers = self.limiter.maximum * (2 if self.backend.prefers_batches else 1)

        async def worker() -> None:
            while (item := await queue.get()) is not None:
                if self.stopped is None:
                    await self.work(item)

        async def produce() -> None:
            async for item in self.items(contexts):
                if self.stopped is not None:
                    break
                await queue.put(item)
            for _ in range(n_workers):
                await queue.put(None)

        tasks = [asyncio.create_task(produce()), *(asyncio.create_task(worker()) for _ in range(n_workers))]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
            await asyncio.gather(*tasks)
            await self.judges.drain()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)  # all stopped before the writer closes
            await self.judges.cancel()


def run_reasoning(config: RunConfig) -> Reasoning | None:
    """The typed reasoning controls every request carries (``None`` when neither option is set)."""
    if config.reasoning_effort is None and config.reasoning_budget is None:
        return None
    return Reasoning(effort=config.reasoning_effort, budget_tokens=config.reasoning_budget)


def task_repeats(task: Task, config: RunConfig) -> int | None:
    """Answers per sample: ``--repeats``, else the task's ``repeats.n``; ``None`` without repeats."""
    if config.repeats is not None:
        return config.repeats
    return task.spec.repeats.n if task.spec.repeats is not None else None


def check_repeats(tasks: list[Task], config: RunConfig) -> None:
    """A task's ``pass@k`` must not ask for more answers than ``--repeats`` gives (before any request)."""
    from omnieval.types.task import check_pass_k

    for task in tasks:
        spec = task.spec.repeats
        n = task_repeats(task, config)
        if spec is not None and n is not None:
            try:
                check_pass_k(
                    spec.pass_k,
                    n,
                    where=f"task {task.name} ({task.origin}): repeats.pass_k with --repeats {n}",
                )
            except ValueError as exc:
                raise ConfigError(str(exc)) from None


def check_tool_calling(tasks: list[Task], backend: Backend) -> None:
    """A task with tools (``agent:``) needs a backend that passes them: refuse it before the run, and
    name an unknown tool environment before any request too."""
    agents = [t for t in tasks if t.spec.agent is not None]
    if not agents:
        return
    from omnieval.agent import environments

    for task in agents:
        assert task.spec.agent is not None
        if not backend.passes_tools():
            raise ConfigError(
                f"task {task.name} ({task.origin}) calls tools, but backend {backend.spec!r} cannot pass "
                "tools to its model (tool calling: openai/, anthropic/, gemini/, replay/, and hf/ or vllm/ "
                "with a chat template that takes tools); the task is refused before the run"
            )
        environments.get(task.spec.agent.environment)


def _error(message: str) -> Any:
    from omnieval.types import Response

    return Response.from_error(message)


def _contexts(
    tasks: list[Task], config: RunConfig, backend: Backend, done: DoneIndex, judges: JudgeStage | None = None
) -> list[TaskContext]:
    contexts = []
    for task in tasks:
        generation, media = _effective(task, config, backend)
        pool = list(task.iter_demos()) if task.iter_demos is not None and task.spec.prompt.fewshot.n else []
        total = task.size
        if total is not None and config.limit is not None:
            total = min(total, config.limit)
        if config.sample_ids:
            total = len(config.sample_ids)
        if config.shard is not None:
            total = len(shard_members(task, config))
        repeats = task_repeats(task, config)
        if repeats is None:  # a replay of a run with repeats answers each recorded repeat
            repeats = backend.recorded_repeats(task.name)
        if total is not None and repeats is not None:
            total *= repeats
        scorer = Scorer.for_task(
            task.spec, judged=judges is not None and judges.for_task(task.name) is not None
        )
        contexts.append(
            TaskContext(
                task,
                scorer,
                generation,
                media,
                pool,
                total=total,
                repeats=repeats,
                reasoning=run_reasoning(config),
            )
        )
    return contexts


def manifest(
    config: RunConfig,
    tasks: list[Task],
    backend: Backend,
    *,
    started: str,
    status: str,
    judges: dict[str, Any] | None = None,
    speech: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The run's full effective configuration and environment (``speech``: what heard spoken answers)."""
    return {
        **({"speech_recognition": speech} if speech else {}),
        "schema_version": MANIFEST_SCHEMA_VERSION,
        "status": status,
        "started": started,
        "finished": dt.datetime.now(dt.UTC).isoformat() if status != "running" else None,
        "environment": environment_info(),
        "config": config.model_dump(
            mode="json", exclude={"backend": {"api_key"}, "judge": {"backend": {"api_key"}}}
        ),
        "judges": judges or {},
        "backend": backend.describe() | {"reasoning": backend.reasoning_mapping(run_reasoning(config))},
        "tasks": {
            t.name: {
                "origin": t.origin,
                "version": t.spec.version,
                "hash": t.content_hash,
                "data_fingerprint": t.data_fingerprint,
                "size": t.size,
                "prompt_variants": [v.id for v in t.spec.prompt.all_variants()],
                "spec": t.spec.model_dump(mode="json"),
            }
            for t in tasks
        },
    }


async def run_async(
    config: RunConfig,
    *,
    tasks: list[Task] | None = None,
    backend: Backend | None = None,
    judge_backend: JudgeBackendFactory | None = None,
    cache_session: str | None = None,
    hooks: HookDispatcher = NO_HOOKS,
    on_first_record: Callable[[Sequence[Task]], None] | None = None,
    on_sample: Callable[[Task, Sample], None] | None = None,
) -> RunOutcome:
    """Run (or resume) an evaluation into ``config.output``; ``judge_backend`` builds the judges' backends
    (default: each judge loaded or connected here, as :func:`~omnieval.runner.judging.default_judge_backend`);
    ``cache_session`` names this invocation in the response caches (a cluster's shards share one; default:
    a new one), whose own entries are never hits; ``hooks`` receives each finished record (off this loop);
    ``on_first_record`` is called once with the tasks, on this loop, as the first sample is recorded: the
    requests are flowing and the process mostly waits on the model from then on (the api makes the
    tail ready); ``on_sample`` is called, on this loop, with each sample the run reads (done or not)."""
    prefetch_environment()  # for the manifest below, while the tasks and the backend are set up
    tasks = tasks if tasks is not None else resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
    check_repeats(tasks, config)
    costs = RunCosts.create(
        prices=config.prices, limit=config.cost_limit, output=config.output, batch=config.batch
    )
    costs.check(config.model, role="model")  # under --cost-limit, an unpriced model fails before any work
    backend = backend or create_backend(config.model, options=_with_media_cache(config))
    if config.batch:
        check_batch_support(backend)
    try:  # ask the server what it serves and takes: a refused task stops the run before anything is written
        notices = await backend.preflight()
        accepts, declined = backend.accepts(), backend.declined()
        plans = plan_capabilities(
            tasks, model=config.model, accepts=accepts, blind=config.blind, declined=declined
        )
        check_capabilities(plans)
        check_tool_calling(tasks, backend)  # never a task's tools dropped silently
    except BaseException:
        await backend.aclose()
        raise
    for notice in notices:
        print(f"[omnieval] warning: {notice}", file=sys.stderr)
    existed = config.output.exists()
    config.output.mkdir(parents=True, exist_ok=True)
    try:
        return await _run_in_folder(
            config,
            tasks,
            backend,
            costs,
            plans=plans,
            judge_backend=judge_backend,
            cache_session=cache_session,
            hooks=hooks,
            on_first_record=on_first_record,
            on_sample=on_sample,
        )
    except BaseException:
        if not existed:
            remove_if_unrecorded(config.output)
        raise


async def _run_in_folder(
    config: RunConfig,
    tasks: list[Task],
    backend: Backend,
    costs: RunCosts,
    *,
    plans: list[TaskPlan],
    judge_backend: JudgeBackendFactory | None,
    cache_session: str | None,
    hooks: HookDispatcher,
    on_first_record: Callable[[Sequence[Task]], None] | None,
    on_sample: Callable[[Task, Sample], None] | None = None,
) -> RunOutcome:
    check_resumable(config, tasks)
    records = config.output / "samples.jsonl"
    done = load_done(records, retry_errors=config.retry_errors)
    # a duplicate id would be lost on resume: fail before the first request (finished tasks were checked)
    check_unique_ids(t for t in tasks if t.size is None or done.count(t.name) < t.size)
    for plan in plans:  # quiet: only a warning (samples the model cannot take are skipped)
        if not config.quiet or plan.action == "skip_some":
            print(f"[omnieval] {plan.line()}", file=sys.stderr)
    started = dt.datetime.now(dt.UTC).isoformat()
    judges = JudgeStage(
        tasks=tasks,
        judge=config.judge,
        retry=config.retry,
        cache_path=_judge_cache(config),
        breaker_threshold=config.breaker_threshold,
        backend_factory=judge_backend or reusing_model(config.model, backend),
        cache_session=cache_session,
        costs=costs,
    )
    judge_info = judges.describe()
    write_json(
        config.output / "manifest.json",
        manifest(config, tasks, backend, started=started, status="running", judges=judge_info),
    )
    writer = open_records(records)
    runner = _Runner(
        config,
        backend,
        writer,
        done,
        judges,
        cache_session=cache_session,
        hooks=hooks,
        costs=costs,
        on_first_record=functools.partial(on_first_record, tasks) if on_first_record else None,
        on_sample=on_sample,
    )
    contexts = _contexts(tasks, config, backend, done, judges)
    try:
        with runner.progress:
            for ctx in contexts:
                runner.progress.add(ctx.name, ctx.total, done=done.count(ctx.name))
            await runner.drive(contexts)
            for ctx in contexts:
                runner.progress.finish(ctx.name, states=dict(ctx.states))
                hooks.task_finished(ctx.name, dict(ctx.states))
    finally:
        writer.close()
        if runner.cache is not None:
            runner.cache.close()
        if runner.batcher is not None:
            await runner.batcher.aclose()
        await judges.aclose()
        await backend.aclose()
    if runner.stopped is not None:  # finished samples are saved; the manifest stays "running" (resumable)
        raise runner.stopped
    write_json(
        config.output / "manifest.json",
        manifest(
            config,
            tasks,
            backend,
            started=started,
            status="finished",
            judges=judge_info,
            speech=runner.hearing.describe(),
        ),
    )
    return RunOutcome(
        config.output,
        tasks,
        {c.name: dict(c.states) for c in contexts},
        runner.fetcher.retries + judges.retries,
        backend.describe(),
        judges=judge_info,
        unknown_sample_ids=_unknown_ids(config, tasks, runner.found_ids, done),
    )


def _unknown_ids(config: RunConfig, tasks: list[Task], found: set[str], done: DoneIndex) -> tuple[str, ...]:
    """``--sample-ids`` neither met in the data nor recorded earlier (a finished task is not streamed
    again)."""
    return tuple(
        i
        for i in config.sample_ids or ()
        if i not in found and not any(done.has_any(t.name, i) for t in tasks)
    )


def _judge_cache(config: RunConfig) -> Path | None:
    """The judge's response cache: ``OUTPUT/judge_cache.sqlite`` (what makes re-judging free)."""
    if not config.use_cache:
        return None
    return config.judge_cache_path or config.output / "judge_cache.sqlite"


def _with_media_cache(config: RunConfig) -> Any:
    options = config.backend
    if options.media_cache_dir is None:
        options = options.model_copy(update={"media_cache_dir": str(config.output / "media_cache")})
    return options


def run(config: RunConfig, **kwargs: Any) -> RunOutcome:
    """Synchronous wrapper of :func:`run_async`."""
    return asyncio.run(run_async(config, **kwargs))


def selected_samples(task: Task, config: RunConfig) -> Iterator[tuple[int, Sample]]:
    """The ``(position, sample)`` pairs a run of ``config`` takes from ``task`` (executors split them into
    shards)."""
    return _selected(task, config)


def unsharded_samples(task: Task, config: RunConfig) -> Iterator[tuple[int, Sample]]:
    """Those a run of ``config`` would take without ``--shard``: every shard's together."""
    return _unsharded(task, config)
