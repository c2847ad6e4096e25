"""The shards still to run, how often each was tried, and what the finished ones did.

A shard goes back to the front of the queue when its worker is lost (an attempt counted: after
``max_shard_attempts`` the run stops) or was only unavailable for a moment (uncounted, at most
:data:`UNAVAILABLE_RETRIES` times); its records so far are kept, so it resumes after them.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omnieval.executors.errors import ExecutorError
from omnieval.executors.shards import ShardPlan, shard_file
from omnieval.store import RecordKey, rewrite_lines, scan_keys

__all__ = ["UNAVAILABLE_RETRIES", "ShardQueue", "Tally"]

UNAVAILABLE_RETRIES = 8
"""Runs of one shard a worker may refuse as unavailable for a moment before it counts as lost."""


@dataclass
class Tally:
    """New samples, retries and per-shard timing of this invocation."""

    states: dict[str, Counter[str]] = field(default_factory=dict)
    retries: int = 0
    judges: dict[str, Any] = field(default_factory=dict)
    shards: dict[str, dict[str, Any]] = field(default_factory=dict)
    before: dict[str, int] = field(default_factory=dict)
    """Per shard: how many records its file held when this invocation started (the rest are new)."""

    def add(self, plan: ShardPlan, report: dict[str, Any], keys: list[RecordKey], *, attempts: int) -> None:
        """A finished shard; its new records are those after the ones it started with (the last per sample
        and repeat), so the records a lost worker wrote (streamed to the driver before its node left) count
        too, not only its replacement's."""
        last = {(k.sample_id, k.repeat): k.state for k in keys[self.before.get(plan.key, 0) :]}
        new = Counter(last.values())
        self.states.setdefault(plan.task, Counter()).update(new)
        self.retries += int(report["retries"])
        self.judges.update(report.get("judges") or {})
        self.shards[plan.key] = {
            "task": plan.task,
            "samples": plan.size,
            "positions": [plan.positions[0], plan.positions[-1]],
            "new_samples": sum(new.values()),
            "attempts": attempts,
            "started": dt.datetime.fromtimestamp(report["started"], dt.UTC).isoformat(),
            "wall_s": report["wall_s"],
            "node": report["node"],
            "pid": report["pid"],
            "status": "ran",
        }


class ShardQueue:
    """Shards to hand out (in plan order, those run again first), with each shard's records so far."""

    def __init__(
        self,
        todo: Iterable[ShardPlan],
        current: dict[str, list[RecordKey]],
        *,
        output: Path,
        max_attempts: int,
    ) -> None:
        self.todo = deque(todo)
        self.current = current
        """Per shard: the records its file holds on the driver (kept up to date as workers stream them)."""
        self.output, self.max_attempts = output, max_attempts
        self.attempts: Counter[str] = Counter()
        self.unavailable: Counter[str] = Counter()
        """Per shard: runs refused by a worker that was unavailable for a moment (never a lost worker)."""
        self.tally = Tally(before={key: len(keys) for key, keys in current.items()})

    def __len__(self) -> int:
        return len(self.todo)

    def take(self) -> tuple[ShardPlan, list[bytes]]:
        """The next shard (an attempt counted) and the record lines it resumes after."""
        plan = self.todo.popleft()
        self.attempts[plan.key] += 1
        return plan, [k.line for k in self.current[plan.key]]

    def note_unavailable(self, plan: ShardPlan) -> int:
        """The shard's worker lives but did not run it; how often that happened to the shard."""
        self.unavailable[plan.key] += 1
        return self.unavailable[plan.key]

    def again_uncounted(self, plan: ShardPlan) -> float:
        """The shard goes first again, this attempt not counted (see :meth:`note_unavailable`); the
        seconds to back off first."""
        self.attempts[plan.key] -= 1
        self.todo.appendleft(plan)
        return min(2.0, 0.1 * 2 ** self.unavailable[plan.key])

    def again(self, plan: ShardPlan) -> None:
        """The shard lost its worker: it goes first again (its next run counts as an attempt)."""
        self.todo.appendleft(plan)

    def given_up(self, plan: ShardPlan) -> ExecutorError:
        """The shard lost its worker on its last attempt: the run stops."""
        return ExecutorError(
            f"shard {plan.key} (task {plan.task}) lost its worker {self.attempts[plan.key]} times; giving up"
        )

    def finished(self, plan: ShardPlan, report: dict[str, Any]) -> None:
        """A worker finished the shard: its records replace the driver's copy, and count."""
        path = shard_file(self.output, plan)
        path.parent.mkdir(parents=True, exist_ok=True)
        rewrite_lines(path, report["lines"])  # the driver's copy (a no-op rewrite on a shared filesystem)
        self.current[plan.key] = list(scan_keys(path))
        self.tally.add(plan, report, self.current[plan.key], attempts=self.attempts[plan.key])

    def streamed(self, plan: ShardPlan, lines: list[bytes]) -> None:
        """Records a running shard's worker off the driver's node wrote since the last poll."""
        path = shard_file(self.output, plan)
        with path.open("ab") as fh:
            fh.writelines(lines)
        self.current[plan.key] = list(scan_keys(path))
