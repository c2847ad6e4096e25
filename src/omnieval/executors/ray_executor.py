"""``--executor ray``: shards over worker actors, lost workers replaced, records merged in plan order.

The driver plans shards (model × task × sample range), gives each idle worker the next unfinished
shard, keeps the shard's returned records, and rebuilds ``samples.jsonl`` from the shards at the end.
A shard that is already complete on disk is never sent again. A worker that dies is replaced and its
shard run again, resuming from whatever of it was already written.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import os
import sys
import threading
import time
import uuid
from collections import Counter, deque
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from omnieval.backends import Backend, create_backend
from omnieval.errors import ConfigError, OmnievalError, StoreError
from omnieval.executors.actors import driver_node, most_on_one_node, pinned
from omnieval.executors.gate import EndpointGate
from omnieval.executors.judge_cluster import (
    JudgesOnCluster,
    endpoint_key,
    is_local,
    plan_judges,
    start_judges,
)
from omnieval.executors.options import ExecutorOptions
from omnieval.executors.shards import (
    ShardPlan,
    is_finished,
    merge_shards,
    plan_shards,
    remember_plan,
    remembered_shard_size,
    seed_shards,
    shard_file,
    unplanned_sample_ids,
)
from omnieval.executors.views import MediaStore, ShardViews
from omnieval.executors.worker import ShardWorker, run_caches
from omnieval.runner import RunConfig, RunOutcome, resolve_tasks
from omnieval.runner.progress import Progress
from omnieval.runner.resume import check_resumable
from omnieval.runner.run import manifest
from omnieval.sources import Task, check_unique_ids
from omnieval.store import (
    RecordKey,
    ResponseCache,
    read_entries,
    rewrite_lines,
    scan_keys,
    write_json,
)
from omnieval.types.files import ManifestFile, load_file

__all__ = ["ExecutorError", "describe_model", "endpoint_gate", "run_on_ray"]

POLL_S = 0.5


class ExecutorError(OmnievalError):
    """The cluster could not finish the run (a shard lost its worker too often, Ray missing)."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError("--executor ray needs Ray: pip install 'omnieval[ray]'") from None
    return ray


CLIENT_ATTEMPTS = 3


def _join(ray: Any, address: str, runtime_env: dict[str, Any] | None) -> None:
    """``ray.init(address)``; a Ray Client address (``ray://``) is tried up to three times, because the
    cluster starts a server per client and that start fails now and then (observed with Ray 2.60)."""
    attempts = CLIENT_ATTEMPTS if address.startswith("ray://") else 1
    for attempt in range(1, attempts + 1):
        try:
            ray.init(address=address, log_to_driver=False, runtime_env=runtime_env)
            return
        except ConnectionError:  # ConnectionAbortedError: "Initialization failure from server"
            if attempt == attempts:
                raise
            time.sleep(2.0 * attempt)


def connect(options: ExecutorOptions) -> bool:
    """Join ``ray_address`` or start a local Ray; True when this call started it (and must stop it)."""
    ray = _ray()
    if ray.is_initialized():
        return False
    if options.ray_address:
        try:
            _join(ray, options.ray_address, options.runtime_env)
        except Exception as exc:  # ConnectionError, Ray's AuthenticationError, a client timeout...
            raise ExecutorError(
                f"could not join the Ray cluster at --ray-address {options.ray_address}: "
                f"{type(exc).__name__}: {exc}. "
                "Check the address (HOST:6379 from a cluster node, ray://HOST:10001 from elsewhere) and, for "
                "a cluster "
                "with token authentication, RAY_AUTH_MODE=token and the cluster's token (~/.ray/auth_token)"
            ) from None
    else:
        cpus = options.local_cpus or os.cpu_count() or 1
        # "local": a new instance even when another Ray runs on this machine (else init joins it and refuses
        # num_cpus)
        ray.init(
            address="local",
            num_cpus=max(cpus, (options.workers or 1) + options.judge_replicas),
            include_dashboard=False,
            log_to_driver=False,
            runtime_env=options.runtime_env,
        )
    return True


def _endpoint(backend: Backend, config: RunConfig) -> str:
    return endpoint_key(backend, config.backend)


GATES = threading.RLock()
"""Held while a run finds or creates its endpoint's gate (a sweep's models share one, from threads)."""


def _gate_name(backend: Backend, config: RunConfig) -> str:
    return "omnieval-gate-" + uuid.uuid5(uuid.NAMESPACE_URL, _endpoint(backend, config)).hex[:12]


def endpoint_gate(
    ray: Any, backend: Backend, config: RunConfig, *, leases: dict[str, int] | None = None
) -> Any:
    """The endpoint's gate actor (named by provider and base URL): every run on that endpoint, a
    sweep's concurrent models included, gets the same one while anyone holds a handle to it.
    ``leases``: slots already granted to workers, for a gate this call creates (see :func:`_gate_exists`)."""
    with GATES:
        actor = ray.remote(EndpointGate).options(
            name=_gate_name(backend, config), get_if_exists=True, max_concurrency=10_000, **pinned(ray)
        )
        return actor.remote(config.backend.concurrency, leases=leases)


LONE: dict[str, str] = {}
"""Endpoint (gate name) → the run of this process that reserved all its slots and has no gate (a lone
worker's, or one whose first worker is still starting: see :func:`_start_fleet`). A run that comes to
the same endpoint meanwhile creates the gate holding them all; the reserving run hands them back when
it ends or opens its gate (:func:`_end_lone`)."""


def _end_lone(ray: Any, name: str | None) -> None:
    if name is None:
        return
    with GATES:
        gate_name = next((k for k, v in LONE.items() if v == name), None)
        if gate_name is None:
            return
        del LONE[gate_name]
        try:
            gate = ray.get_actor(gate_name)
        except ValueError:  # nobody came to the endpoint meanwhile
            return
        gate.forget.remote(name)


def _gate_exists(ray: Any, backend: Backend, config: RunConfig) -> bool:
    """Whether this driver's job has the endpoint's gate already (a sweep holds its gates). Asked under
    :data:`GATES`, so a gate found missing here is created by this run with the leases it granted (named
    actors are per job: other drivers never share it)."""
    try:
        ray.get_actor(_gate_name(backend, config))
    except ValueError:
        return False
    return True


READY_S = 120.0
"""How long the driver waits for the endpoint's gate to start."""


STALL_S = 60.0
"""How long a run with no live worker waits for a replacement to be placed before it stops (resumably)."""
UNAVAILABLE_RETRIES = 8
"""Runs of one shard a worker may refuse as unavailable for a moment before it counts as lost."""


def new_owner() -> str:
    return uuid.uuid4().hex[:12]


def live_nodes(ray: Any) -> set[str]:
    return {str(n["NodeID"]) for n in ray.nodes() if n.get("Alive")}


@dataclass
class _Fleet:
    """Worker actors and what each is doing: starting (not yet placed), idle, or running a shard."""

    ray: Any
    config: RunConfig
    actor_options: dict[str, Any]
    gate: Any
    """The endpoint's gate: created when the first worker starts (:meth:`open_gate`); ``None`` for a
    local model, or a lone worker that holds every slot of the limit (see :func:`_start_fleet`)."""
    judges: JudgesOnCluster | None = None
    session: str = field(default_factory=lambda: uuid.uuid4().hex)
    """This invocation's cache session: one for all its workers, so a shard never hits what another wrote."""
    starting: dict[Any, tuple[str, Any, float]] = field(default_factory=dict)
    idle: list[tuple[str, Any]] = field(default_factory=list)
    busy: dict[Any, tuple[str, Any, ShardPlan]] = field(default_factory=dict)
    nodes: dict[str, str] = field(default_factory=dict)
    """Worker (owner) → the Ray node it was placed on."""
    suspects: list[str] = field(default_factory=list)
    """Nodes of lost workers (a worker process may die on a node that stays)."""
    lost_nodes: list[str] = field(default_factory=list)
    workers_lost: int = 0
    gone: list[str] = field(default_factory=list)
    """Owners of the workers lost, whose gate slots were handed back (again when a node leaves)."""
    media: MediaStore = field(default_factory=lambda: MediaStore(put=_ray().put))
    """The run's media, one object per distinct content, fetched once per node."""
    unavailable: Counter[str] = field(default_factory=Counter)
    """Per shard: runs refused by a worker that was unavailable for a moment (never a lost worker)."""
    start_error: str | None = None
    """Why the last worker that failed to start failed (e.g. omnieval not installed on its node)."""
    driver_node: str | None = None
    """The driver's node: workers there write in the run's output, others in a per-node temp folder."""
    lone: str | None = None
    """This run's reservation of the endpoint's slots while it has no gate: its name in :data:`LONE`
    (and its owner name in a gate that another run of this process creates meanwhile)."""
    backend: Backend | None = None
    gate_due: bool = False
    """The gate is to be created when the first worker starts (see :meth:`open_gate`)."""
    grants: dict[str, int] = field(default_factory=dict)
    """Slots a worker gets with its next shard: those the gate was created holding for it."""
    rested: set[str] = field(default_factory=set)
    """Idle workers told to hand back their slots (nothing is left to give them)."""
    coordinators: list[Any] = field(default_factory=list)
    """The gate's first answer, not yet in: the run goes on meanwhile."""
    since: float = field(default_factory=time.monotonic)
    seeds: dict[str, Any] = field(default_factory=dict)
    """The driver's response-cache entries at the start (object-store handles), for workers off its node."""

    def spawn(self, *, lease: int | None = None, near_driver: bool = False) -> None:
        """Start a worker; ``lease``: the endpoint's slots it holds without a gate (all of them for a lone
        worker; 0 for a worker started before its gate: it gets the gate later, from :meth:`open_gate`).
        ``near_driver``: placed on the driver's node if it has room there (see :func:`_near`)."""
        owner = new_owner()
        if lease is None and self.lone:  # a lone worker's replacement (the lost one was stopped first)
            lease = self.config.backend.concurrency
        options = {**self.actor_options, **(_near(self.driver_node) if near_driver else {})}
        cls = self.ray.remote(ShardWorker).options(**options)
        routes = self.judges.routes if self.judges is not None else None
        worker = cls.remote(
            self.config,
            owner=owner,
            gate=self.gate if lease is None else None,
            judges=routes,
            session=self.session,
            driver_node=self.driver_node,
            lease=lease,
            caches=self.seeds,
        )
        self.starting[worker.where.remote()] = (owner, worker, time.monotonic())

    def open_gate(self, owner: str) -> None:
        """The first worker started: create the endpoint's gate holding every slot for it (handed over
        with its first shard, see :meth:`give`), and hand the gate to every worker; the run's
        reservation in :data:`LONE` ends. Should another run of this process have created the gate
        meanwhile (holding this run's reserved slots), those slots go back and the workers lease theirs."""
        ray, config, limit = self.ray, self.config, self.config.backend.concurrency
        assert self.backend is not None
        self.gate_due = False
        with GATES:
            existed = _gate_exists(ray, self.backend, config)
            _end_lone(ray, self.lone)
            self.lone = None
            leases = None if existed else {owner: limit}
            self.gate = endpoint_gate(ray, self.backend, config, leases=leases)
        if leases:
            self.grants[owner] = limit
        for _owner, actor in [*self.idle, *((o, a) for o, a, _ in self.starting.values())]:
            actor.attach.remote(self.gate)
        self.coordinators, self.since = [self.gate.stats.remote()], time.monotonic()

    def rest(self) -> None:
        """No shard is left to give: idle workers hand their free slots back to the gate for the busy
        ones (a worker started with a granted lease and never given a shard would keep it)."""
        for owner, actor in self.idle:
            if owner not in self.rested:
                self.rested.add(owner)
                actor.rest.remote()

    def check(self, ref: Any) -> bool:
        """Whether ``ref`` is a coordinator's first answer (a failure stops the run: see
        :func:`_check_started`)."""
        if ref not in self.coordinators:
            return False
        self.coordinators.remove(ref)
        _check_started(self.ray, [ref])
        return True

    def started(self, ref: Any) -> None:
        """A starting worker answered (placed and built): it takes shards from now on."""
        owner, actor, _ = self.starting.pop(ref)
        try:
            self.nodes[owner] = str(self.ray.get(ref)["node_id"])
        except Exception as exc:  # it died before it started (its node left, omnieval missing there)
            self._drop(owner, actor)
            self.workers_lost += 1
            self.start_error = f"{type(exc).__name__}: {exc}"[:1000]
            return
        self.idle.append((owner, actor))
        if self.gate_due:
            self.open_gate(owner)

    def stalled(self) -> bool:
        """Workers were lost, none is running or idle, and none of those starting was placed within
        ``STALL_S`` (before any loss, a pending worker is just slow to start: some node can hold it)."""
        if self.idle or self.busy or not self.workers_lost:
            return False
        return not self.starting or all(time.monotonic() - t > STALL_S for _, _, t in self.starting.values())

    def give(self, plan: ShardPlan, lines: list[bytes], task: Task) -> None:
        owner, actor = self.idle.pop()
        media = self.media.refs(task)
        where = {"owner": owner, "node_id": self.nodes.get(owner), "started": time.time()}
        folder = shard_file(self.config.output, plan).parent
        folder.mkdir(parents=True, exist_ok=True)
        write_json(folder / "attempt.json", where)  # which node runs it (its worker may write elsewhere)
        grant = self.grants.get(owner, 0)  # the slots the gate was created holding for it (sent with each
        # shard: a shard refused as unavailable may never have run; the worker takes them once)
        self.busy[actor.run_shard.remote(plan, lines, task, media, grant)] = (owner, actor, plan)

    def transient(self, exc: BaseException, owner: str, actor: Any, plan: ShardPlan, tally: _Tally) -> bool:
        """A worker that is still there keeps its place: one only unavailable for a moment (Ray's
        ``ActorUnavailableError``, e.g. while the cluster settles after another node left) on a node that
        is still alive, or one whose shard failed on an actor *it* called (a coordinator restarting): Ray
        raises the latter as a ``RayTaskError`` that is also an instance of its cause's class, so an
        ``ActorDiedError`` met inside the worker used to pass for the worker's own death, which stopped a
        live worker and counted an attempt. Its shard is run again, on it or another idle worker, without
        counting as an attempt (bounded)."""
        from ray.exceptions import ActorUnavailableError, RayTaskError

        node = self.nodes.get(owner)
        alive = isinstance(exc, RayTaskError) or (
            isinstance(exc, ActorUnavailableError) and node is not None and node in live_nodes(self.ray)
        )
        if not alive:
            return False
        self.unavailable[plan.key] += 1
        if self.unavailable[plan.key] > UNAVAILABLE_RETRIES:
            return False
        tally.attempts[plan.key] -= 1
        time.sleep(min(2.0, 0.1 * 2 ** self.unavailable[plan.key]))
        self.idle.append((owner, actor))
        return True

    def lost(self, owner: str, actor: Any) -> None:
        """A worker died: hand back its gate slots, stop it for good, and start a replacement only when
        the live cluster has room for one (never wait for resources of a node that left)."""
        self._drop(owner, actor)
        self.workers_lost += 1
        node = self.nodes.pop(owner, None)
        if node is not None and node not in self.suspects:
            self.suspects.append(node)
        self.note_left()
        if self._room():
            self.spawn()

    def note_left(self) -> None:
        """Record (and say) which nodes of lost workers left the cluster. Ray marks a node dead only after
        its health checks fail (seconds after its actors), so this is asked again while the run goes on."""
        if set(self.suspects) <= set(self.lost_nodes):
            return
        alive = live_nodes(self.ray)
        for node in self.suspects:
            if node not in alive and node not in self.lost_nodes:
                self.lost_nodes.append(node)
                self._forget(self.gone)
                print(
                    f"omnieval: Ray node {node[:12]} left the cluster; {self._left_with()}", file=sys.stderr
                )

    def _left_with(self) -> str:
        """What the run goes on with, as a user reads it after a node left."""
        live, starting = len(self.idle) + len(self.busy), len(self.starting)
        if live == starting == 0:
            return "no worker is left: a replacement starts as soon as the cluster has room for one"
        return f"the run goes on with {live} live worker(s)" + (f", {starting} starting" if starting else "")

    def _room(self) -> bool:
        free = self.ray.available_resources()
        need = {"CPU": self.actor_options["num_cpus"], "GPU": self.actor_options["num_gpus"]}
        return all(free.get(k, 0.0) >= v for k, v in need.items() if v > 0)

    def _drop(self, owner: str, actor: Any) -> None:
        self.gone.append(owner)
        self._forget([owner])
        self.ray.kill(actor, no_restart=True)

    def _forget(self, owners: list[str]) -> None:
        """The gates hand back these owners' slots. Said again once their node is known gone: a gate on that
        node may have taken the first word with it (Ray restarts it empty), and a lost worker's process
        can outlive its node for some seconds and re-register its slots with the restarted gate."""
        for owner in owners:
            if self.gate is not None:
                self.gate.forget.remote(owner)
            if self.judges is not None:
                self.judges.forget(owner)

    def stop(self) -> None:
        """Close and stop every worker; their gate slots go back (the gate outlives the run in a sweep,
        where other models share it, so a failed run's busy workers must not keep theirs)."""
        for _owner, actor, _ in self.starting.values():
            self.ray.kill(actor, no_restart=True)
        workers = self.idle + [(o, a) for o, a, _ in self.busy.values()]
        forgotten = []
        for owner, actor in workers:
            with contextlib.suppress(Exception):  # a dead or stuck worker: nothing to close
                self.ray.get(actor.close.remote(), timeout=30)
            self.ray.kill(actor, no_restart=True)
            if self.gate is not None:
                forgotten.append(self.gate.forget.remote(owner))
        with contextlib.suppress(Exception):  # the gate is gone too: nobody holds its slots
            self.ray.get(forgotten, timeout=30)
        if self.judges is not None:
            self.judges.stop(owners=[owner for owner, _ in workers])
        _end_lone(self.ray, self.lone)


@dataclass
class _Tally:
    """New samples, retries and per-shard timing of this invocation."""

    states: dict[str, Counter[str]] = field(default_factory=dict)
    retries: int = 0
    judges: dict[str, Any] = field(default_factory=dict)
    shards: dict[str, dict[str, Any]] = field(default_factory=dict)
    attempts: Counter[str] = field(default_factory=Counter)
    before: dict[str, int] = field(default_factory=dict)
    """Per shard: how many records its file held when this invocation started (the rest are new)."""

    def add(self, plan: ShardPlan, report: dict[str, Any], keys: list[RecordKey]) -> None:
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
            "attempts": self.attempts[plan.key],
            "started": dt.datetime.fromtimestamp(report["started"], dt.UTC).isoformat(),
            "wall_s": report["wall_s"],
            "node": report["node"],
            "pid": report["pid"],
            "status": "ran",
        }


SLOTS_PER_WORKER = 64
"""An API model's default: one worker per this many of the endpoint's ``--concurrency`` slots. One
process keeps 64 requests in flight with CPU to spare at any real endpoint's latency (hundreds of ms
and up: ~100 requests/s, where a worker handles several hundred), and each extra worker is one more
process to start (Python, Ray, omnieval: ~1 s of CPU) and to feed; more workers pay only where one
process's CPU is the bottleneck (ask for them with ``--workers``)."""


def _worker_count(
    options: ExecutorOptions,
    ray: Any,
    *,
    local_model: bool,
    gpus: float,
    reserved: dict[str, float],
    concurrency: int = SLOTS_PER_WORKER,
) -> int:
    """``--workers``, else: a local model one replica per ``gpus`` GPUs (1 without); an API model one
    worker per :data:`SLOTS_PER_WORKER` slots of its ``concurrency``, at most the cluster's CPUs allow."""
    if options.workers is not None:
        if options.workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {options.workers}")
        return options.workers
    resources = {
        k: v - reserved.get(k, 0.0) for k, v in ray.cluster_resources().items()
    }  # judge replicas' share
    if local_model:
        return max(1, int(resources.get("GPU", 0) // gpus)) if gpus else 1
    room = max(1, int(resources.get("CPU", 1) // max(options.cpus_per_worker, 1e-9)))
    return min(room, math.ceil(max(1, concurrency) / SLOTS_PER_WORKER))


def replica_gpus(ray: Any, options: ExecutorOptions, *, local_model: bool) -> float:
    """GPUs per replica (default: 1 for a local model on a cluster with GPUs, else 0), checked to fit."""
    gpus = options.gpus_per_replica
    if gpus is None:
        gpus = 1.0 if local_model and ray.cluster_resources().get("GPU", 0) >= 1 else 0.0
    _check_fits(ray, options, gpus=gpus)
    return gpus


def _check_fits(ray: Any, options: ExecutorOptions, *, gpus: float) -> None:
    """Refuse a replica that no node of the cluster could hold: Ray would leave it pending for ever."""
    if gpus < 0:
        raise ConfigError(f"--gpus-per-replica must be 0 or more, got {gpus:g}")
    most = most_on_one_node(ray, {"GPU": gpus, "CPU": options.cpus_per_worker})
    if most is None:
        return
    raise ConfigError(
        f"each replica asks for {gpus:g} GPU(s) (--gpus-per-replica) and {options.cpus_per_worker:g} CPU(s), "
        f"but no node of the cluster has that much (at most {most['GPU']:g} GPU(s) and {most['CPU']:g} "
        "CPU(s) on one node); use --gpus-per-replica 0 to run on CPUs"
    )


def _actor_options(options: ExecutorOptions, *, gpus: float) -> dict[str, Any]:
    return {"num_cpus": options.cpus_per_worker, "num_gpus": gpus, "max_restarts": 0, "max_concurrency": 8}


def _start_progress(
    progress: Progress, tasks: list[Task], plans: list[ShardPlan], current: dict[str, list[RecordKey]]
) -> None:
    """One bar per task over all its shards, starting from what the shard files already hold."""
    done: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for plan in plans:
        done[plan.task] += len({(k.sample_id, k.repeat) for k in current[plan.key]})
        totals[plan.task] += plan.records  # records: samples × repeats
    for task in tasks:
        progress.add(task.name, totals[task.name], done=done[task.name])


@dataclass
class _Polls:
    """The workers' progress (:meth:`ShardWorker.progress`), asked for one poll ahead: the driver never
    waits on a worker, and no answer is dropped (a worker hands each streamed record out once)."""

    ray: Any
    pending: dict[Any, str] = field(default_factory=dict)
    """Poll → the worker asked."""
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Shard → its latest counts (``done``, ``new``)."""

    def take(
        self, workers: list[tuple[str, Any]], running: AbstractSet[str]
    ) -> tuple[dict[str, list[bytes]], dict[str, list[Any]]]:
        """The answers in by now (the counts kept; the records returned by shard, the response-cache
        entries by cache), and a new poll of each worker not being asked already. A lost worker's poll
        fails: its shard runs again anyway."""
        from ray.exceptions import RayError

        lines: dict[str, list[bytes]] = {}
        entries: dict[str, list[Any]] = {}
        if self.pending:
            ready, _ = self.ray.wait(list(self.pending), num_returns=len(self.pending), timeout=0)
            for ref in ready:
                del self.pending[ref]
                try:
                    answer = self.ray.get(ref)
                except RayError:
                    continue
                for key, counts in answer.items():
                    for cache, rows in (counts.pop("caches", None) or {}).items():
                        entries.setdefault(cache, []).extend(rows)  # each handed out once: all kept
                    if key in running:  # a finished shard's counts came with its result
                        lines.setdefault(key, []).extend(counts.pop("lines", None) or [])
                        self.seen[key] = counts
        asked = set(self.pending.values())
        for owner, actor in workers:
            if owner not in asked:
                self.pending[actor.progress.remote()] = owner
        return lines, entries


def _show(
    progress: Progress,
    polls: _Polls,
    fleet: _Fleet,
    plans: list[ShardPlan],
    current: dict[str, list[RecordKey]],
    *,
    output: Path,
    caches: dict[str, Path],
) -> None:
    """Fold the workers' latest shard counts into the per-task bars (samples done, errors, ETA), add the
    records that workers off the driver's node streamed to the running shards' files, and their response
    cache entries to the run's caches."""
    running = {plan.key for _, _, plan in fleet.busy.values()}
    workers = list({owner: actor for owner, actor, _ in fleet.busy.values()}.items())
    lines, entries = polls.take(workers, running)
    keep_entries(caches, entries)
    for key in running & lines.keys():  # a finished shard's file is already its worker's full copy
        path = shard_file(output, next(p for p in plans if p.key == key))
        with path.open("ab") as fh:
            fh.writelines(lines[key])
        current[key] = list(scan_keys(path))
    done: Counter[str] = Counter()
    new: dict[str, Counter[str]] = {}
    for plan in plans:
        seen = polls.seen.get(plan.key)
        done[plan.task] += seen["done"] if seen else len(current[plan.key])
        new.setdefault(plan.task, Counter()).update(seen["new"] if seen else {})
    for task, states in new.items():
        progress.update(task, done=done[task], states=dict(states))


def keep_entries(caches: dict[str, Path], entries: dict[str, list[Any]]) -> None:
    """Response-cache entries of workers off the driver's node, written into the run's caches on the
    driver (with the sessions that wrote them), so a resume or ``omnieval rejudge`` reuses them."""
    for name, rows in entries.items():
        if rows and name in caches:
            cache = ResponseCache(caches[name])
            cache.add(rows)
            cache.close()


def cache_seeds(ray: Any, config: RunConfig, *, driver: str | None) -> dict[str, Any]:
    """The run's default caches' entries as they are before it starts, one object per cache: workers off
    the driver's node start their own caches from them, as a worker on its node reads the files. None on a
    cluster of the driver's node alone (a local Ray), where no worker would fetch them."""
    if not config.use_cache or (driver is not None and live_nodes(ray) == {driver}):
        return {}
    seeds = {}
    for name, path in run_caches(config).items():
        rows, _ = read_entries(path) if getattr(config, name) is None else ([], 0)
        if rows:
            seeds[name] = ray.put(rows)
    return seeds


def describe_model(config: RunConfig) -> Backend:
    """The backend as the driver sees it (never loaded here): kind of model and the manifest entry."""
    return create_backend(config.model, options=config.backend)


def _executor_block(
    options: ExecutorOptions,
    *,
    workers: int,
    shard_size: int,
    gpus: float,
    tally: _Tally,
    old: dict[str, Any],
) -> dict[str, Any]:
    shards = {k: {**v, "status": "done earlier"} for k, v in (old.get("shards") or {}).items()}
    shards.update(tally.shards)
    return {
        "kind": "ray",
        "address": options.ray_address or "local",
        "workers": workers,
        "shard_size": shard_size,
        "gpus_per_replica": gpus,
        "shards": shards,
    }


def _previous(config: RunConfig, key: Literal["executor", "judges"]) -> dict[str, Any]:
    """A block of the directory's earlier manifest (``executor``, ``judges``), or an empty one."""
    path = config.output / "manifest.json"
    try:
        manifest: ManifestFile | None = load_file(path, ManifestFile) if path.exists() else None
    except StoreError:  # unreadable, or not a manifest: nothing to carry over
        manifest = None
    block = None if manifest is None else manifest.judges if key == "judges" else manifest.executor
    return block if isinstance(block, dict) else {}


def _drive(
    fleet: _Fleet,
    todo: deque[ShardPlan],
    current: dict[str, list[RecordKey]],
    *,
    config: RunConfig,
    options: ExecutorOptions,
    tally: _Tally,
    progress: Progress,
    plans: list[ShardPlan],
    views: ShardViews,
    polls: _Polls,
) -> None:
    """Hand shards to idle workers until none is left; replace lost workers where the cluster has room
    and run their shards again on whoever is live; stop (resumably) when no worker is left at all."""
    ray = fleet.ray
    from ray.exceptions import RayActorError, RayTaskError, WorkerCrashedError

    caches = run_caches(config)

    while todo or fleet.busy:
        while todo and fleet.idle:
            plan = todo.popleft()
            tally.attempts[plan.key] += 1
            fleet.give(plan, [k.line for k in current[plan.key]], views.for_shard(plan))
        if not todo:
            fleet.rest()
        if todo and fleet.stalled():
            raise ExecutorError(_shrunk(ray, fleet, todo, options))
        if fleet.coordinators and time.monotonic() - fleet.since > READY_S:
            _check_started(ray, fleet.coordinators, timeout=0)
        ready, _ = ray.wait(
            [*fleet.busy, *fleet.starting, *fleet.coordinators], num_returns=1, timeout=POLL_S
        )
        _show(progress, polls, fleet, plans, current, output=config.output, caches=caches)
        fleet.note_left()
        for ref in ready:
            if fleet.check(ref):
                continue
            if ref in fleet.starting:
                fleet.started(ref)
                continue
            owner, actor, plan = fleet.busy.pop(ref)
            try:
                report = ray.get(ref)
            except (RayActorError, WorkerCrashedError) as exc:
                if fleet.transient(exc, owner, actor, plan, tally):
                    todo.appendleft(plan)
                    continue
                if isinstance(exc, RayTaskError):  # the worker lives: an actor it called kept failing
                    fleet.idle.append((owner, actor))
                    raise ExecutorError(
                        f"shard {plan.key} (task {plan.task}): an actor its worker called failed "
                        f"{fleet.unavailable[plan.key]} times: {_last_line(exc)}"
                    ) from None
                if tally.attempts[plan.key] >= options.max_shard_attempts:
                    raise ExecutorError(
                        f"shard {plan.key} (task {plan.task}) lost its worker "
                        f"{tally.attempts[plan.key]} times; giving up"
                    ) from None
                fleet.lost(owner, actor)
                todo.appendleft(plan)
                continue
            except RayTaskError as exc:
                cause = exc.cause if isinstance(exc.cause, BaseException) else None
                raise (
                    cause if isinstance(cause, OmnievalError) else ExecutorError(f"shard {plan.key}: {exc}")
                ) from None
            path = shard_file(config.output, plan)
            path.parent.mkdir(parents=True, exist_ok=True)
            rewrite_lines(path, report["lines"])  # the driver's copy (a no-op rewrite on a shared filesystem)
            keep_entries(caches, report.get("caches") or {})
            current[plan.key] = list(scan_keys(path))
            polls.seen[plan.key] = {"done": len(current[plan.key]), "new": report["new"]}
            tally.add(plan, report, current[plan.key])
            fleet.idle.append((owner, actor))


def _last_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[-1] if text else type(exc).__name__)[:500]


def _shrunk(ray: Any, fleet: _Fleet, todo: deque[ShardPlan], options: ExecutorOptions) -> str:
    free = ray.available_resources()
    return (
        f"the Ray cluster shrank: no worker is left and none could be placed within {STALL_S:g} s (each "
        "needs "
        f"{options.cpus_per_worker:g} CPU(s), {fleet.actor_options['num_gpus']:g} GPU(s); the live nodes "
        "have "
        f"{free.get('CPU', 0):g} CPU(s), {free.get('GPU', 0):g} GPU(s) free; {len(fleet.lost_nodes)} node(s) "
        "lost). "
        f"{len(todo)} shard(s) are left; the records so far are kept: run the same command again, once the "
        "cluster has room, to finish them"
        + (
            f". The last worker that failed to start: {fleet.start_error} (is omnieval installed on every "
            "node? "
            "see --ray-runtime-env)"
            if fleet.start_error
            else ""
        )
    )


def _start_fleet(fleet: _Fleet, backend: Backend, *, workers: int, local_model: bool) -> None:
    """Start the workers; no worker waits for a coordinator to send its first requests. On an endpoint
    this process has no gate for yet, the run reserves every slot (in :data:`LONE`): a lone worker
    holds them all itself and no gate is ever started; with more workers the gate is created when the
    first one starts (:meth:`_Fleet.open_gate`), holding every slot for it, and the others lease
    theirs from the gate as they come (so the gate's process starts after the first worker's, and the
    first worker fills the endpoint alone meanwhile). A gate the driver has already (a sweep's) leases
    them the usual way; the gate's first answer is checked as the run goes."""
    ray, config = fleet.ray, fleet.config
    limit = config.backend.concurrency
    with GATES:
        name = _gate_name(backend, config)
        lone = LONE.get(name)
        fresh = not local_model and lone is None and not _gate_exists(ray, backend, config)
        if fresh:
            LONE[name] = fleet.lone = f"lone-{fleet.session}"
            fleet.backend, fleet.gate_due = backend, workers > 1
        elif not local_model:  # a sweep's gate; or one created holding another run's reserved slots
            fleet.gate = endpoint_gate(ray, backend, config, leases={lone: limit} if lone else None)
            fleet.coordinators = [fleet.gate.stats.remote()]
        for n in range(workers):  # the first on the driver's node (where Ray has a process ready)
            fleet.spawn(lease=(limit if workers == 1 else 0) if fresh else None, near_driver=n == 0)
    fleet.since = time.monotonic()


def _near(node: str | None) -> dict[str, Any]:
    """Options that place a worker on the driver's node when that node has room for it, else wherever Ray
    likes (a node without CPUs for workers, or with them all taken, lets it go elsewhere at once). Ray
    keeps a started worker process ready there for the driver's job, so the first worker skips a process
    start (~1 s of CPU), and it writes the run's files itself (nothing to stream to the driver)."""
    if node is None:  # a Ray Client driver has no node of its own
        return {}
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    strategy = NodeAffinitySchedulingStrategy(node_id=node, soft=True, _spill_on_unavailable=True)
    return {"scheduling_strategy": strategy}


def _check_started(ray: Any, refs: list[Any], *, timeout: float = READY_S) -> None:
    """The coordinators answer (they fail at once where omnieval is missing from the cluster's Python)."""
    try:
        ray.get(refs, timeout=timeout)
    except Exception as exc:
        raise ExecutorError(
            f"the run's coordinators did not start on the cluster: {_last_line(exc)} (is omnieval installed "
            "on every node, in the same version? see --ray-runtime-env)"
        ) from None


def on_driver(config: RunConfig) -> RunConfig:
    """The run's paths made absolute against the driver's working directory before anything is planned,
    so no worker reads them against its own (the task data itself travels with the shards)."""
    options = config.backend
    if options.media_cache_dir is not None:
        options = options.model_copy(update={"media_cache_dir": os.path.abspath(options.media_cache_dir)})
    return config.model_copy(
        update={
            "output": config.output.absolute(),
            "cache_path": config.cache_path.absolute() if config.cache_path else None,
            "judge_cache_path": config.judge_cache_path.absolute() if config.judge_cache_path else None,
            "backend": options,
        }
    )


def run_on_ray(
    config: RunConfig,
    options: ExecutorOptions,
    *,
    progress: Progress | None = None,
    judges: JudgesOnCluster | None = None,
) -> RunOutcome:
    """Run (or resume) ``config`` on Ray; same directory layout and records as a local run.

    ``progress``: a display the caller owns (a sweep's row for this model); default: the run's own bars.
    ``judges``: judge gates and pools the caller started and keeps (a sweep's, shared by its models);
    default: the run starts its own and stops them at its end.
    """
    ray = _ray()
    config = on_driver(config)
    tasks = resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
    config.output.mkdir(parents=True, exist_ok=True)
    check_resumable(config, tasks)
    check_unique_ids(tasks)
    backend = describe_model(config)
    local_model = is_local(backend)
    started_here = connect(options)
    try:
        return _run(
            ray, config, options, tasks, backend, local_model=local_model, progress=progress, judges=judges
        )
    finally:
        if started_here:
            ray.shutdown()


def _run(
    ray: Any,
    config: RunConfig,
    options: ExecutorOptions,
    tasks: list[Task],
    backend: Backend,
    *,
    local_model: bool,
    progress: Progress | None = None,
    judges: JudgesOnCluster | None = None,
) -> RunOutcome:
    gpus = replica_gpus(ray, options, local_model=local_model)
    judge_plan = plan_judges(config, tasks, options, cluster_gpus=ray.cluster_resources().get("GPU", 0))
    if judges is not None:
        judges.covers(list(judge_plan.judges))
    reserved = judge_plan.reserved() if judges is None else {}  # a caller's pools are accounted by the caller
    workers = _worker_count(
        options,
        ray,
        local_model=local_model,
        gpus=gpus,
        reserved=reserved,
        concurrency=config.backend.concurrency,
    )
    size = options.shard_size or remembered_shard_size(config.output)
    plans, shard_size = plan_shards(tasks, config, shard_size=size, workers=workers)
    remember_plan(config.output, plans, shard_size)
    current = seed_shards(config.output, plans)
    todo = deque(p for p in plans if not is_finished(current[p.key], p, retry_errors=config.retry_errors))
    old, tally = _previous(config, "executor"), _Tally(before={k: len(v) for k, v in current.items()})
    old_judges = _previous(config, "judges")
    started = dt.datetime.now(dt.UTC).isoformat()
    judged: dict[str, Any] = {}  # the judges' gates and pools: what they allowed and did
    lost: dict[str, Any] = {}  # nodes that left the cluster and workers lost during the run

    def write_manifest(status: str) -> None:
        block = _executor_block(
            options, workers=workers, shard_size=shard_size, gpus=gpus, tally=tally, old=old
        )
        block["judges"] = judged.get("block") or old.get("judges") or {}
        if lost.get("workers"):
            block["lost"] = lost
        judges = (
            judge_plan.annotate(tally.judges) or old_judges
        )  # judged in the shards; a resume with nothing to run keeps the last
        document = manifest(config, tasks, backend, started=started, status=status, judges=judges)
        write_json(config.output / "manifest.json", {**document, "executor": block})

    write_manifest("running")
    if progress is None:
        progress = Progress(quiet=config.quiet)
    with progress:
        _start_progress(progress, tasks, plans, current)
        if todo:
            if judges is None and judge_plan.judges:
                judges = start_judges(ray, judge_plan)
            fleet = _Fleet(ray, config, _actor_options(options, gpus=gpus), None, judges)
            fleet.driver_node = driver_node(ray)
            fleet.seeds = cache_seeds(ray, config, driver=fleet.driver_node)
            try:
                _start_fleet(fleet, backend, workers=min(workers, len(todo)), local_model=local_model)
                polls = _Polls(ray)
                _drive(
                    fleet,
                    todo,
                    current,
                    config=config,
                    options=options,
                    tally=tally,
                    progress=progress,
                    plans=plans,
                    views=ShardViews(config),
                    polls=polls,
                )
                fleet.note_left()
                lost.update(workers=fleet.workers_lost, on_nodes=fleet.suspects, nodes_left=fleet.lost_nodes)
                _show(progress, polls, fleet, plans, current, output=config.output, caches=run_caches(config))
                judged["block"] = judges.block() if judges is not None else {}
            finally:
                fleet.stop()
        for task in tasks:
            progress.finish(task.name, states=dict(tally.states.get(task.name, {})))
    merge_shards(config.output, plans)
    write_manifest("finished")
    states = {t.name: dict(tally.states.get(t.name, {})) for t in tasks}
    described = judge_plan.annotate(tally.judges) or old_judges
    return RunOutcome(
        config.output,
        tasks,
        states,
        tally.retries,
        backend.describe(),
        judges=described,
        unknown_sample_ids=unplanned_sample_ids(plans, config),
    )
