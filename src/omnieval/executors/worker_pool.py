"""The run's worker actors: starting (not yet placed), idle, or running a shard; lost ones replaced.

A worker takes shards only once Ray has placed and built it, and a replacement is started only when
the live cluster has room for one, so a worker waiting for resources of a node that left never holds
a shard. Everything goes through a :class:`~omnieval.executors.ray_port.RayPort`.
"""

from __future__ import annotations

import contextlib
import sys
import time
import uuid
from typing import Any, NamedTuple

from omnieval.executors.gate_leases import GateLeases
from omnieval.executors.ray_port import IN_DRIVER, Actor, RayPort, Ref
from omnieval.executors.shards import ShardPlan, shard_file
from omnieval.runner import RunConfig
from omnieval.sources import Task
from omnieval.store import write_json

__all__ = ["STALL_S", "Running", "Starting", "Worker", "WorkerPool"]

STALL_S = 60.0
"""How long a run with no live worker waits for a replacement to be placed before it stops (resumably)."""


class Worker(NamedTuple):
    owner: str
    """The worker's name at the gates (its slots are counted under it)."""
    actor: Actor


class Starting(NamedTuple):
    worker: Worker
    since: float


class Running(NamedTuple):
    worker: Worker
    plan: ShardPlan


class WorkerPool:
    """Worker actors and what each is doing; lost workers, the nodes they ran on and those that left."""

    def __init__(
        self,
        port: RayPort,
        config: RunConfig,
        leases: GateLeases,
        *,
        session: str,
        actor_options: dict[str, Any],
        driver_node: str | None = None,
        seeds: dict[str, Any] | None = None,
    ) -> None:
        self.port, self.config, self.leases, self.actor_options = port, config, leases, actor_options
        self.session = session
        """This invocation's cache session: one for all its workers (a shard never hits another's entries)."""
        self.driver_node = driver_node
        """The driver's node: workers there write in the run's output, others in a per-node temp folder."""
        self.seeds = seeds or {}
        """The driver's response-cache entries at the start (object-store handles), for workers elsewhere."""
        self.starting: dict[Ref, Starting] = {}
        self.idle: list[Worker] = []
        self.busy: dict[Ref, Running] = {}
        self.nodes: dict[str, str] = {}
        """Worker (owner) → the Ray node it was placed on."""
        self.suspects: list[str] = []
        """Nodes of lost workers (a worker process may die on a node that stays)."""
        self.lost_nodes: list[str] = []
        self.workers_lost = 0
        self.gone: list[str] = []
        """Owners of the workers lost, whose gate slots were handed back (again when a node leaves)."""
        self.start_error: str | None = None
        """Why the last worker that failed to start failed (e.g. omnieval not installed on its node)."""
        self.rested: set[str] = set()
        """Idle workers told to hand back their slots (nothing is left to give them)."""
        self.seat: str | None = None
        """The driver's seat (:mod:`~omnieval.executors.seat`), while it takes shards: its owner name."""
        self.deferred: list[dict[str, Any]] = []
        """Actors to start once the seat has its first shard (:meth:`defer`): their start (a Ray call each)
        then costs the seat's first request nothing."""

    def spawn(self, *, lease: int | None, near_driver: bool = False, in_driver: bool = False) -> None:
        """Start a worker; ``lease``: the endpoint's slots it holds without a gate (all of them for a lone
        worker; 0 for a worker started before its gate: it gets the gate when the first worker starts);
        ``None``: it leases from the gate. ``near_driver``: placed on the driver's node if it has room.
        ``in_driver``: the driver's seat, which takes shards only while actors are starting."""
        owner = uuid.uuid4().hex[:12]
        options = {**self.actor_options, **(self.port.near(self.driver_node) if near_driver else {})}
        if in_driver:
            options[IN_DRIVER], self.seat = True, owner
        judges = self.leases.judges
        actor = self.port.worker(
            options,
            self.config,
            owner=owner,
            gate=self.leases.gate if lease is None else None,
            judges=judges.routes if judges is not None else None,
            session=self.session,
            driver_node=self.driver_node,
            lease=lease,
            caches=self.seeds,
        )
        self.starting[self.port.call(actor, "where")] = Starting(Worker(owner, actor), time.monotonic())

    def started(self, ref: Ref) -> None:
        """A starting worker answered (placed and built): it takes shards from now on."""
        worker = self.starting.pop(ref).worker
        try:
            self.nodes[worker.owner] = str(self.port.get(ref)["node_id"])
        except Exception as exc:  # it died before it started (its node left, omnieval missing there)
            self._drop(worker)
            self.workers_lost += 1
            self.start_error = f"{type(exc).__name__}: {exc}"[:1000]
            return
        self.idle.append(worker)
        gate = self.leases.worker_started(worker.owner)
        if gate is not None:  # the gate came now: every worker started before it attaches
            for other in [*self.idle, *(s.worker for s in self.starting.values())]:
                self.port.call(other.actor, "attach", gate)
        self._retire_seat()

    def defer(self, **spawn: Any) -> None:
        """Start this actor (:meth:`spawn`'s arguments) once the seat has its first shard."""
        self.deferred.append(spawn)

    def back(self, worker: Worker) -> None:
        """A worker's shard ended: it takes the next (the seat only while actors are still starting)."""
        self.idle.append(worker)
        self._retire_seat()

    def _retire_seat(self) -> None:
        """The seat, idle, stops once no actor is starting: the actors take the run from here."""
        seat = next((w for w in self.idle if w.owner == self.seat), None)
        if seat is None or self.deferred or any(s.worker.owner != self.seat for s in self.starting.values()):
            return
        self.idle.remove(seat)
        self.seat = None
        self.port.call(seat.actor, "rest")
        self._close([seat])
        self._reshare()

    def stalled(self) -> bool:
        """Workers were lost, none is running or idle, and none of those starting was placed within
        ``STALL_S`` (before any loss, a pending worker is just slow to start: some node can hold it)."""
        if self.idle or self.busy or not self.workers_lost:
            return False
        now = time.monotonic()
        return not self.starting or all(now - s.since > STALL_S for s in self.starting.values())

    def give(self, plan: ShardPlan, lines: list[bytes], task: Task, media: dict[str, Any]) -> None:
        """An idle worker runs ``plan`` (resuming after ``lines``, its records so far); an actor before
        the seat."""
        actors = [w for w in self.idle if w.owner != self.seat]
        worker = actors[-1] if actors else self.idle[-1]
        self.idle.remove(worker)
        where = {"owner": worker.owner, "node_id": self.nodes.get(worker.owner), "started": time.time()}
        folder = shard_file(self.config.output, plan).parent
        folder.mkdir(parents=True, exist_ok=True)
        write_json(folder / "attempt.json", where)  # which node runs it (its worker may write elsewhere)
        grant = self.leases.grant(worker.owner)
        ref = self.port.call(worker.actor, "run_shard", plan, lines, task, media, grant)
        self.busy[ref] = Running(worker, plan)
        deferred, self.deferred = self.deferred, []
        for spawn in deferred:
            if self.leases.gate is not None:  # it came with the seat: they lease from it
                spawn = {**spawn, "lease": None}
            self.spawn(**spawn)

    def rest(self) -> None:
        """No shard is left to give: idle workers hand their free slots back to the gate for the busy
        ones (a worker started with a granted lease and never given a shard would keep it)."""
        resting = [worker for worker in self.idle if worker.owner not in self.rested]
        for worker in resting:
            self.rested.add(worker.owner)
            self.port.call(worker.actor, "rest")
        if resting:
            self._reshare()

    def _reshare(self) -> None:
        """Busy workers learn their larger share now: a worker went idle (its slots went back to the
        gate as its shard ended), and the busy ones would otherwise wait for their next tick."""
        for running in self.busy.values():
            self.port.call(running.worker.actor, "reshare")

    def lost(self, worker: Worker) -> None:
        """A worker died: hand back its gate slots, stop it for good, and start a replacement only when
        the live cluster has room for one (never wait for resources of a node that left)."""
        self._drop(worker)
        self.workers_lost += 1
        node = self.nodes.pop(worker.owner, None)
        if node is not None and node not in self.suspects:
            self.suspects.append(node)
        self.note_left()
        if self._room():
            self.spawn(lease=self.leases.replacement_lease())

    def note_left(self) -> None:
        """Record (and say) which nodes of lost workers left the cluster. Ray marks a node dead only after
        its health checks fail (seconds after its actors), so this is asked again while the run goes on."""
        if set(self.suspects) <= set(self.lost_nodes):
            return
        alive = self.port.live_nodes()
        for node in self.suspects:
            if node not in alive and node not in self.lost_nodes:
                self.lost_nodes.append(node)
                self.leases.forget(self.gone)
                print(f"omnieval: Ray node {node[:12]} left the cluster; {self.left_with()}", file=sys.stderr)

    def left_with(self) -> str:
        """What the run goes on with, as a user reads it after a node left."""
        live, starting = len(self.idle) + len(self.busy), len(self.starting)
        if live == starting == 0:
            return "no worker is left: a replacement starts as soon as the cluster has room for one"
        return f"the run goes on with {live} live worker(s)" + (f", {starting} starting" if starting else "")

    def shrunk(self, *, shards_left: int) -> str:
        """Why the run stops when no worker is left and none could be placed (see :meth:`stalled`)."""
        free = self.port.available_resources()
        cpus, gpus = self.actor_options["num_cpus"], self.actor_options["num_gpus"]
        return (
            f"the Ray cluster shrank: no worker is left and none could be placed within {STALL_S:g} s (each "
            f"needs {cpus:g} CPU(s), {gpus:g} GPU(s); the live nodes have {free.get('CPU', 0):g} CPU(s), "
            f"{free.get('GPU', 0):g} GPU(s) free; {len(self.lost_nodes)} node(s) lost). {shards_left} "
            "shard(s) are left; the records so far are kept: run the same command again, once the cluster "
            "has room, to finish them"
            + (
                f". The last worker that failed to start: {self.start_error} (is omnieval installed on "
                "every node? see --ray-runtime-env)"
                if self.start_error
                else ""
            )
        )

    def _room(self) -> bool:
        free = self.port.available_resources()
        need = {"CPU": self.actor_options["num_cpus"], "GPU": self.actor_options["num_gpus"]}
        return all(free.get(k, 0.0) >= v for k, v in need.items() if v > 0)

    def _drop(self, worker: Worker) -> None:
        self.gone.append(worker.owner)
        self.leases.forget([worker.owner])
        self.port.kill(worker.actor)

    def stop(self) -> None:
        """Close and stop every worker; their gate slots go back (the gate outlives the run in a sweep,
        where other models share it, so a failed run's busy workers must not keep theirs)."""
        for starting in self.starting.values():
            self.port.kill(starting.worker.actor)
        workers = self.idle + [running.worker for running in self.busy.values()]
        self.leases.close(self._close(workers), owners=[worker.owner for worker in workers])

    def _close(self, workers: list[Worker]) -> list[Ref]:
        """Close and stop ``workers``; the gate's answers to their slots handed back."""
        forgotten, closing = [], []
        for worker in workers:  # asked all at once: they close side by side
            with contextlib.suppress(Exception):  # a dead worker: nothing to close
                closing.append((worker, self.port.call(worker.actor, "close")))
        deadline = time.monotonic() + 30
        for _, ref in closing:
            with contextlib.suppress(Exception):  # a dead or stuck worker: nothing to close
                self.port.get(ref, timeout=max(0.0, deadline - time.monotonic()))
        for worker in workers:
            self.port.kill(worker.actor)
            ref = self.leases.forget_one(worker.owner)
            if ref is not None:
                forgotten.append(ref)
        return forgotten
