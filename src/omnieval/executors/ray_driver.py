"""The Ray run's driver loop as a state machine: hand shards to idle workers until none is left.

Each turn the driver is in one :class:`Phase` (:func:`next_phase`): it hands out a shard, or stops
(resumably) when the cluster shrank past any worker, or waits for an answer (idle workers resting
once nothing is left to give). Each shard's answer takes one :class:`ShardStep` (:func:`shard_step`):
keep its records, run it again uncounted on a live worker, replace a lost worker and run it again,
or stop the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from omnieval.errors import OmnievalError
from omnieval.executors.errors import ExecutorError, last_line
from omnieval.executors.gate_leases import GateLeases
from omnieval.executors.ray_polls import Polls, keep_entries
from omnieval.executors.ray_port import Failure, RayPort, Ref
from omnieval.executors.shard_queue import UNAVAILABLE_RETRIES, ShardQueue
from omnieval.executors.shards import ShardPlan
from omnieval.executors.worker_pool import Running, WorkerPool
from omnieval.runner.progress import Progress
from omnieval.sources import Task

__all__ = ["POLL_S", "Driver", "Phase", "ShardStep", "next_phase", "shard_step"]

POLL_S = 0.5


class Phase(Enum):
    """Where the run stands at the top of a driver turn."""

    HAND_OUT = "hand out"
    """A shard waits and a worker is idle: the worker takes it."""
    WAIT = "wait"
    """Shards wait for workers (running, starting or to be replaced): wait for an answer."""
    DRAIN = "drain"
    """Every shard is handed out: idle workers hand back their slots; wait for the running ones."""
    STALLED = "stalled"
    """Shards wait, no worker is live and none could be placed: the run stops, resumably."""
    DONE = "done"
    """No shard waits or runs."""


def next_phase(*, waiting: int, idle: int, running: int, stalled: bool) -> Phase:
    """The transition at the top of each turn, from the queue's and the pool's counts."""
    if not waiting:
        return Phase.DRAIN if running else Phase.DONE
    if idle:
        return Phase.HAND_OUT
    return Phase.STALLED if stalled else Phase.WAIT


class ShardStep(Enum):
    """What a shard's answer leads to."""

    KEEP = "keep"
    """It finished: its records are kept, its worker takes the next."""
    AGAIN_UNCOUNTED = "again uncounted"
    """Its worker lives (unavailable for a moment, or an actor it called failed): the shard goes first
    again without counting as an attempt, the worker keeps its place."""
    REPLACE = "replace"
    """Its worker was lost: the worker is replaced and the shard goes first again."""
    GIVE_UP = "give up"
    """Its worker was lost on its last attempt: the run stops."""
    CALLEE_FAILED = "callee failed"
    """An actor its worker called kept failing: the run stops, naming that actor's error."""
    FAILED = "failed"
    """The shard itself raised: the run stops with that error."""


def shard_step(
    failure: Failure | None, *, alive: bool, unavailable: int, attempts: int, max_attempts: int
) -> ShardStep:
    """The transition for a shard's answer: ``failure`` (``None``: it finished), whether its worker is
    still there (``alive``), the shard's uncounted runs so far with this one (``unavailable``) and its
    attempts."""
    if failure is None:
        return ShardStep.KEEP
    if failure is Failure.TASK:
        return ShardStep.FAILED
    if alive and unavailable <= UNAVAILABLE_RETRIES:
        return ShardStep.AGAIN_UNCOUNTED
    if failure is Failure.CALLEE:
        return ShardStep.CALLEE_FAILED
    return ShardStep.GIVE_UP if attempts >= max_attempts else ShardStep.REPLACE


@dataclass
class Driver:
    """One run's driver: its workers, gates, shards, and what it shows."""

    port: RayPort
    pool: WorkerPool
    leases: GateLeases
    queue: ShardQueue
    task_of: Callable[[ShardPlan], Task]
    """The shard's view of its task (:meth:`ShardViews.for_shard`)."""
    media: Callable[[Task], dict[str, Any]]
    """The object-store handles of a shard's media (:meth:`MediaStore.refs`)."""
    progress: Progress
    plans: list[ShardPlan]
    caches: dict[str, Path] = field(default_factory=dict)
    """The run's default response caches, where entries from workers off the driver's node go."""
    sleep: Callable[[float], None] = time.sleep
    polls: Polls = field(init=False)

    def __post_init__(self) -> None:
        self.polls = Polls(self.port)

    def phase(self) -> Phase:
        pool = self.pool
        return next_phase(
            waiting=len(self.queue), idle=len(pool.idle), running=len(pool.busy), stalled=pool.stalled()
        )

    def run(self) -> None:
        """Hand shards to idle workers until none is left; replace lost workers where the cluster has room
        and run their shards again on whoever is live; stop (resumably) when no worker is left at all."""
        while (phase := self.phase()) is not Phase.DONE:
            if phase is Phase.HAND_OUT:
                plan, lines = self.queue.take()
                task = self.task_of(plan)
                self.pool.give(plan, lines, task, self.media(task))
                continue
            if phase is Phase.STALLED:
                raise ExecutorError(self.pool.shrunk(shards_left=len(self.queue)))
            if phase is Phase.DRAIN:
                self.pool.rest()
            self.leases.check_overdue()
            refs = [*self.pool.busy, *self.pool.starting, *self.leases.coordinators]
            ready = self.port.wait(refs, num_returns=1, timeout=POLL_S)
            self.show()
            self.pool.note_left()
            for ref in ready:
                self.answer(ref)

    def show(self) -> None:
        self.polls.show(self.progress, self.pool, self.queue, self.plans, caches=self.caches)

    def answer(self, ref: Ref) -> None:
        """One answer in: the gate's first, a worker's start, or a shard's end."""
        if self.leases.is_first_answer(ref):
            return
        if ref in self.pool.starting:
            self.pool.started(ref)
            return
        running = self.pool.busy.pop(ref)
        try:
            report = self.port.get(ref)
        except Exception as exc:
            failure = self.port.failure(exc)
            if failure in (None, Failure.OTHER):
                raise
            self.failed(running, failure, exc)
            return
        self.finished(running, report)

    def finished(self, running: Running, report: dict[str, Any]) -> None:
        """:data:`ShardStep.KEEP`: the shard's records replace the driver's copy; its worker is idle."""
        worker, plan = running
        self.queue.finished(plan, report)
        keep_entries(self.caches, report.get("caches") or {})
        self.polls.seen[plan.key] = {"done": len(self.queue.current[plan.key]), "new": report["new"]}
        self.pool.back(worker)

    def failed(self, running: Running, failure: Failure, error: BaseException) -> None:
        """A shard's run failed: take the step :func:`shard_step` says."""
        worker, plan = running
        queue, pool = self.queue, self.pool
        node = pool.nodes.get(worker.owner)
        alive = failure is Failure.CALLEE or (
            failure is Failure.UNAVAILABLE and node is not None and node in self.port.live_nodes()
        )
        step = shard_step(
            failure,
            alive=alive,
            unavailable=queue.note_unavailable(plan) if alive else queue.unavailable[plan.key],
            attempts=queue.attempts[plan.key],
            max_attempts=queue.max_attempts,
        )
        if step is ShardStep.AGAIN_UNCOUNTED:
            self.sleep(queue.again_uncounted(plan))
            pool.idle.append(worker)
        elif step is ShardStep.REPLACE:
            pool.lost(worker)
            queue.again(plan)
        elif step is ShardStep.GIVE_UP:
            raise queue.given_up(plan) from None
        elif step is ShardStep.CALLEE_FAILED:
            pool.idle.append(worker)
            raise ExecutorError(
                f"shard {plan.key} (task {plan.task}): an actor its worker called failed "
                f"{queue.unavailable[plan.key]} times: {last_line(error)}"
            ) from None
        else:  # ShardStep.FAILED
            cause = getattr(error, "cause", None)
            raise (
                cause if isinstance(cause, OmnievalError) else ExecutorError(f"shard {plan.key}: {error}")
            ) from None
