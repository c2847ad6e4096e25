"""Judges as a worker holds them, without Ray: one judge per worker for all its shards, the pool stand-in's
routing, and a lost replica's batch failing retryable (so the runner retries it on another)."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from omnieval.backends import BackendOptions
from omnieval.backends.breaker import classify
from omnieval.errors import BackendError
from omnieval.executors.judge_cluster import JudgePoolDown, JudgeReplica, JudgeRoute, WorkerJudges, pooled
from omnieval.executors.shards import plan_shards
from omnieval.executors.views import ShardViews
from omnieval.executors.worker import ShardWorker
from omnieval.runner import JudgeConfig, RunConfig, resolve_tasks, run
from omnieval.types import Request
from tests.executors.judge_helpers import constructions, judged_record_set, judged_task
from tests.executors.test_worker import LocalModel  # noqa: F401  (registers the counting-local model)


def test_a_worker_builds_its_judge_once_for_all_its_shards(tmp_path: Path) -> None:
    task = judged_task(tmp_path, 30)
    loads = tmp_path / "loads.txt"
    judge = JudgeConfig(model=f"counting-judge/{loads}", retries=0)
    cfg = RunConfig(
        tasks=(str(task),), model="counting-local/m", output=tmp_path / "w", quiet=True, judge=judge
    )
    plans, _ = plan_shards(resolve_tasks(cfg.tasks), cfg, shard_size=8, workers=1)
    worker = ShardWorker(cfg, owner="w1")

    async def run_all() -> None:
        for plan in plans:
            await worker.run_shard(plan, [], ShardViews(cfg).for_shard(plan))
        await worker.close()

    asyncio.run(run_all())
    assert len(plans) == 4 and len(constructions(loads)) == 1, "one judge for the worker's four shards"
    assert (tmp_path / "w" / "judge_cache.sqlite").exists(), "the run's one judge cache, not one per shard"
    run(cfg.model_copy(update={"output": tmp_path / "local"}))
    shard_sets = set().union(*(judged_record_set(tmp_path / "w" / "shards" / p.key) for p in plans))
    assert shard_sets == judged_record_set(tmp_path / "local")


class _Replica:
    """A replica handle as Ray gives it (``.remote`` returns an awaitable); ``dead`` ones fail every call."""

    def __init__(self, inner: JudgeReplica, *, dead: bool = False) -> None:
        self.inner, self.dead, self.calls = inner, dead, 0
        self.generate_many = self

    def remote(self, requests: Sequence[Request]) -> Any:
        self.calls += 1
        if self.dead:
            raise RuntimeError("actor died")
        return self.inner.generate_many(list(requests))


def _requests(n: int) -> list[Request]:
    from omnieval.types import Message

    return [
        Request(task="t", sample_id=str(i), messages=(Message(role="user", content=f"Вопрос {i}: x"),))
        for i in range(n)
    ]


def test_pool_stand_in_spreads_batches_and_survives_a_lost_replica(tmp_path: Path) -> None:
    loads = tmp_path / "loads.txt"
    replica = JudgeReplica(f"counting-judge/{loads}", BackendOptions())
    alive, other, dead = _Replica(replica), _Replica(replica), _Replica(replica, dead=True)
    stand_in = pooled(JudgeRoute(kind="pool", replicas=(alive, other), info=replica.info()))
    assert (
        stand_in.spec == f"counting-judge/{loads}"
        and stand_in.prefers_batches
        and stand_in.describe() == replica.backend.describe()
    )

    async def batches() -> list[str]:
        texts = []
        for i in range(4):
            (out,) = await stand_in.generate_many(_requests(i + 1)[-1:])
            texts.append(out.text)  # type: ignore[union-attr]
        return texts

    assert asyncio.run(batches()) == ["0", "1", "2", "3"]
    assert asyncio.run(stand_in.generate(_requests(2)[-1])).text == "1"
    assert (alive.calls, other.calls) == (3, 2), "idle replicas take batches in turn"
    broken = pooled(JudgeRoute(kind="pool", replicas=(dead, alive), info=replica.info()))
    with pytest.raises(BackendError) as lost:
        asyncio.run(broken.generate_many(_requests(1)))
    assert lost.value.retryable and "replica 0 lost" in str(lost.value)
    assert asyncio.run(broken.generate_many(_requests(1)))[0].text == "0"  # type: ignore[union-attr]
    assert dead.calls == 1, "a lost replica is never asked again"
    only_dead = pooled(JudgeRoute(kind="pool", replicas=(_Replica(replica, dead=True),), info=replica.info()))
    with pytest.raises(BackendError) as gone:
        asyncio.run(only_dead.generate_many(_requests(1)))
    assert gone.value.retryable and classify(gone.value) is None, (
        "a lost replica is an infrastructure fault: retried, never counted by the circuit breaker"
    )
    with pytest.raises(JudgePoolDown, match=r"has no replica left.*replica 0: RuntimeError: actor died"):
        asyncio.run(only_dead.generate_many(_requests(1)))  # no pool to replace it: the run stops


def test_worker_judges_route_api_judges_through_their_gate() -> None:
    class Gate:
        def __init__(self) -> None:
            self.share = self.acquire = self.release = self

    judges = WorkerJudges({"openai/j": JudgeRoute(kind="gate", gate=Gate(), limit=5)}, owner="w1")
    backend = judges.backend("openai/j", BackendOptions(base_url="http://x/v1"))
    assert judges.backend("openai/j", BackendOptions()) is backend, (
        "one backend per judge model for the worker's life"
    )
    assert judges.gates["openai/j"].cap == 5 and backend.spec == "openai/j"
    classifier = judges.backend("pooling/c", BackendOptions(base_url="http://x", extra={"sep_token": "|"}))
    assert classifier.classifies and classifier.sep_token() == "|", (
        "a shared judge keeps its kind and its own options"
    )


class _Pool:
    """A pool handle whose ``replace`` gives the lost slot the next spare replica, or, with none left, says
    why."""

    def __init__(self, spares: list[_Replica]) -> None:
        self.spares, self.asked = spares, list[tuple[int, int]]()
        self.replace = self

    def remote(self, index: int, generation: int) -> Any:
        self.asked.append((index, generation))

        async def answer() -> Any:
            await asyncio.sleep(0.01)  # a replica takes a while to start: callers wait for it
            if self.spares:
                return generation + 1, self.spares.pop(0)
            return f"replica {index} not replaced: the pool already started 1 replacements, the most per run"

        return answer()


def test_pool_stand_in_takes_its_pools_replacement_for_a_lost_replica(tmp_path: Path) -> None:
    replica = JudgeReplica(f"counting-judge/{tmp_path / 'loads.txt'}", BackendOptions())
    fresh = _Replica(replica)
    pool = _Pool([fresh])
    stand_in = pooled(
        JudgeRoute(kind="pool", replicas=(_Replica(replica, dead=True),), info=replica.info(), pool=pool)
    )

    async def main() -> None:
        with pytest.raises(BackendError) as lost:
            await stand_in.generate_many(_requests(1))
        assert lost.value.retryable, (
            "its only replica is lost, but a replacement is starting: the batch is retried"
        )
        assert (await stand_in.generate_many(_requests(2)[-1:]))[0].text == "1"  # type: ignore[union-attr]
        assert stand_in.replicas == [fresh] and stand_in.generations == [1]
        fresh.dead = True
        with pytest.raises(BackendError) as again:
            await stand_in.generate_many(_requests(1))
        assert again.value.retryable and classify(again.value) is None
        with pytest.raises(JudgePoolDown, match=r"has no replica left.*the most per run") as gone:
            await stand_in.generate_many(
                _requests(1)
            )  # waits for the pool's answer: no replacement this time
        assert "run the same command again to resume" in str(gone.value), (
            "the pool is down for good: the run stops at once, resumably"
        )

    asyncio.run(main())
    assert pool.asked == [(0, 0), (0, 1)], "each loss reported once, with the generation that was lost"
    assert fresh.calls == 2


class _RestartingPool:
    """A pool handle that fails its first ``fails`` calls (Ray could not deliver them while the pool
    restarted on a live node), then answers ``answer``."""

    def __init__(self, fails: int, answer: Any) -> None:
        self.fails, self.answer, self.asked = fails, answer, 0
        self.replace = self

    def remote(self, index: int, generation: int) -> Any:
        self.asked += 1
        if self.asked <= self.fails:
            raise RuntimeError("the actor is temporarily unavailable")

        async def answer() -> Any:
            return self.answer

        return answer()


def test_a_pool_restarting_is_asked_again_and_its_replacement_taken(tmp_path: Path) -> None:
    """Before, a failed call to the pool left the slot lost for good: with one replica every later judge
    call failed and the breaker stopped the run while the restarted pool could have replaced it."""
    replica = JudgeReplica(f"counting-judge/{tmp_path / 'loads.txt'}", BackendOptions())
    fresh = _Replica(replica)
    pool = _RestartingPool(2, (1, fresh))
    stand_in = pooled(
        JudgeRoute(kind="pool", replicas=(_Replica(replica, dead=True),), info=replica.info(), pool=pool)
    )

    async def main() -> str:
        with pytest.raises(BackendError):
            await stand_in.generate_many(_requests(1))
        (answer,) = await stand_in.generate_many(_requests(2)[-1:])
        return answer.text  # type: ignore[union-attr]

    assert asyncio.run(main()) == "1"
    assert pool.asked == 3 and fresh.calls == 1


def test_a_replica_that_still_answers_is_used_again(tmp_path: Path) -> None:
    """The pool finds the replica alive (its call failed for a moment): the worker takes it back rather
    than leave the slot lost for good."""
    replica = JudgeReplica(f"counting-judge/{tmp_path / 'loads.txt'}", BackendOptions())
    flaky = _Replica(replica, dead=True)
    pool = _RestartingPool(0, (0, flaky))
    stand_in = pooled(JudgeRoute(kind="pool", replicas=(flaky,), info=replica.info(), pool=pool))

    async def main() -> str:
        with pytest.raises(BackendError):
            await stand_in.generate_many(_requests(1))
        flaky.dead = False
        (answer,) = await stand_in.generate_many(_requests(2)[-1:])
        return answer.text  # type: ignore[union-attr]

    assert asyncio.run(main()) == "1" and flaky.calls == 2


def test_a_judge_with_no_replica_left_stops_the_run_without_tripping_the_breaker(tmp_path: Path) -> None:
    """Through the runner's fetcher: the lost replica's call is retried (not counted by the breaker), and
    with no replica left the run stops with ``JudgePoolDown`` (resumable), no sample judged a failure."""
    from omnieval.backends.breaker import CircuitBreaker
    from omnieval.runner.config import RetryPolicy
    from omnieval.runner.execute import Fetcher
    from omnieval.runner.limiter import AdaptiveLimiter

    replica = JudgeReplica(f"counting-judge/{tmp_path / 'loads.txt'}", BackendOptions())
    stand_in = pooled(JudgeRoute(kind="pool", replicas=(_Replica(replica, dead=True),), info=replica.info()))
    breaker = CircuitBreaker("judge", threshold=1)
    fetcher = Fetcher(
        stand_in,
        cache=None,
        retry=RetryPolicy(max_attempts=3, base_delay_s=0.01),
        limiter=AdaptiveLimiter(2),
        breaker=breaker,
    )
    with pytest.raises(JudgePoolDown) as down:
        asyncio.run(fetcher.fetch(_requests(1)[0], "fp"))
    assert breaker.tripped is None and fetcher.retries == 1, "retried once, never counted as a dead endpoint"
    assert pickle.loads(pickle.dumps(down.value)).args == down.value.args, "it reaches the driver as itself"
