"""Judges on the cluster: an API judge under one gate for all workers, a local judge as an actor pool.

Run locally, a judged run creates its judge inside the runner. On Ray that would mean one judge per
shard: a local (``hf/``, ``vllm/``, ``hf_classifier/``) judge loaded again in every shard, an API
judge under no global limit. Instead the driver starts, for each judge model of the run:

- an API judge: an :class:`~omnieval.executors.gate.EndpointGate` of ``--judge-concurrency`` slots,
  so all workers together keep at most that many judge requests in flight, as one machine would;
- a local judge: ``--judge-replicas`` :class:`JudgeReplica` actors, each loading the judge once, kept
  at full size by a :class:`JudgePool` actor that starts a replacement for a lost one (a bounded number).

Workers get a :class:`WorkerJudges`, the runner's judge-backend factory: the judge's backend is made
once per worker and kept across shards, wrapped in the gate's client, or a :class:`PooledJudge` that
sends batches to the least busy replica. Plain classes: the executor turns them into actors.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from omnieval.backends import Backend, BackendOptions, InProcessBackend
from omnieval.backends.breaker import Cause, EndpointDown
from omnieval.backends.shared import CAPABILITIES, SharedBackend, capabilities, share
from omnieval.errors import BackendError, ConfigError, OmnievalError
from omnieval.executors.actors import most_on_one_node, pinned
from omnieval.executors.gate import EndpointGate, GateClient
from omnieval.executors.options import ExecutorOptions
from omnieval.judges import create_judge_backend
from omnieval.runner import RunConfig
from omnieval.runner.judging import judge_models
from omnieval.sources import Task
from omnieval.types import Request, Response

__all__ = [
    "JudgePlan",
    "JudgePool",
    "JudgePoolDown",
    "JudgeReplica",
    "JudgeRoute",
    "JudgesOnCluster",
    "PooledJudge",
    "WorkerJudges",
    "endpoint_key",
    "plan_judges",
    "start_judges",
]

READY_TIMEOUT_S = 600.0
"""How long the driver waits for a judge replica to be placed and started (a GPU may free up)."""

STATE_WAIT_S = 60.0
"""At a run's end, how long the manifest waits for a replacement replica still starting."""

MIN_REPLACEMENTS = 3
"""A pool starts at most ``max(MIN_REPLACEMENTS, replicas)`` replacements for lost replicas: a judge
that keeps dying (out of memory at each load, a bad node) is not restarted for ever."""


def endpoint_key(backend: Backend, options: BackendOptions) -> str:
    """``provider|base_url``: what one server's concurrency limit is named by."""
    return f"{backend.provider}|{getattr(backend, 'base_url', None) or options.base_url or ''}"


def is_local(backend: Backend) -> bool:
    """A model running inside the process (loaded once per replica) rather than behind an endpoint."""
    return isinstance(backend, InProcessBackend)


@dataclass(frozen=True)
class JudgeRoute:
    """How a worker reaches one judge model: through its endpoint's gate or its replica pool."""

    kind: Literal["gate", "pool"]
    gate: Any = None
    """The judge endpoint's gate actor (``kind == "gate"``)."""
    limit: int = 1
    replicas: tuple[Any, ...] = ()
    """The replica actors (``kind == "pool"``)."""
    info: dict[str, Any] = field(default_factory=dict)
    """The replicas' backend as :func:`backend_info` describes it (``kind == "pool"``)."""
    pool: Any = None
    """The :class:`JudgePool` actor that replaces lost replicas (``kind == "pool"``)."""


def backend_info(backend: Backend) -> dict[str, Any]:
    """What a stand-in needs to look like ``backend``; described before any load, as a local run's manifest
    is."""
    info = {
        **capabilities(backend),
        "model": backend.model,
        "options": backend.options,
        "describe": backend.describe(),
        "identity": backend.identity(),
        "endpoint": backend.endpoint(),
        "max_connections": backend.max_connections(),
        "sep": None,
    }
    if backend.classifies:
        info["sep"] = backend.sep_token()
    return info


class JudgeReplica:
    """One copy of a local judge (a Ray actor): the model is built once and answers every worker's batches."""

    def __init__(self, model: str, options: BackendOptions) -> None:
        self.backend = create_judge_backend(model, options=options)
        self._info = backend_info(self.backend)
        self.batches = 0
        self.requests = 0

    def info(self) -> dict[str, Any]:
        return self._info

    async def generate_many(self, requests: list[Request]) -> list[Response | BaseException]:
        """A batch's answers; a batch that fails as a whole gives every request the error (as the runner's
        batcher does)."""
        self.batches += 1
        self.requests += len(requests)
        try:
            return await self.backend.generate_many(requests)
        except Exception as exc:
            return [exc] * len(requests)

    def truncations(self, text: str, max_tokens: int, offset: int) -> list[str]:
        return self.backend.truncations(text, max_tokens=max_tokens, offset=offset)

    def stats(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "node": socket.gethostname(),
            "batches": self.batches,
            "requests": self.requests,
        }

    async def close(self) -> None:
        await self.backend.aclose()


def replica_actor(ray: Any, gpus: float, **placement: Any) -> Any:
    """The replica actor class: never restarted by Ray (its pool starts a fresh one instead); ``placement``:
    more actor options (a test's scheduling strategy)."""
    return ray.remote(JudgeReplica).options(
        num_cpus=1, num_gpus=gpus, max_restarts=0, max_concurrency=64, **placement
    )


Slot = tuple[int, Any] | str
"""A pool slot: (generation, replica), or why it has none."""

PING_S = 10.0
"""How long a pool waits for a replica reported lost to answer before it replaces it: one that answers
(its call could not be delivered for a moment, as while the cluster settles after a node left) keeps its
slot and its loaded model."""

UNHOSTABLE_S = 60.0
"""How long a replacement waits while no live node could hold it at all (the cluster shrank; an
autoscaler may add a node meanwhile) before its slot is left empty."""


class JudgePool:
    """A local judge's replicas (a Ray actor): a lost replica's slot gets a new replica, ``most`` at most.

    A worker reports a lost replica with the slot's generation it used: the first report checks it and
    starts the replacement, later ones (other workers, the same loss) wait for it or get it at once. A
    replacement that dies while starting (placed on a node that was leaving, a load that failed) is
    followed by another, within the same bound. Past ``most`` replacements, or when no live node can
    hold a replica for ``stall_s``, a slot stays empty, with the reason workers then give."""

    def __init__(
        self,
        model: str,
        options: BackendOptions,
        replicas: Sequence[Any],
        *,
        gpus: float,
        most: int,
        stall_s: float = UNHOSTABLE_S,
    ) -> None:
        self.model, self.options, self.gpus, self.most = model, options, gpus, most
        self.stall_s = stall_s
        self.replicas = list(replicas)
        self.generations = [0] * len(self.replicas)
        self.replaced = 0
        self.empty: dict[int, str] = {}
        self._starting: dict[int, asyncio.Future[None]] = {}
        self._closing = False

    def _slot(self, index: int) -> Slot:
        return self.empty.get(index) or (self.generations[index], self.replicas[index])

    async def state(self, wait_s: float = 0.0) -> dict[str, Any]:
        """The slots and the replacements started; waits up to ``wait_s`` for those still starting."""
        if self._starting and wait_s > 0:
            await asyncio.wait(list(self._starting.values()), timeout=wait_s)
        slots = [
            f"replica {i} lost, its replacement still starting" if i in self._starting else self._slot(i)
            for i in range(len(self.replicas))
        ]
        from omnieval.executors.actors import node_id

        return {"slots": slots, "replaced": self.replaced, "node": node_id()}

    async def replace(self, index: int, generation: int) -> Slot:
        """Slot ``index`` after its replica of ``generation`` was reported lost: the same replica when it
        still answers, a new one, or why there is none."""
        if generation == self.generations[index] and index not in self.empty and not self._closing:
            if index not in self._starting:
                self._starting[index] = asyncio.ensure_future(self._renew(index))
            await asyncio.shield(self._starting[index])
        return self._slot(index)

    async def _renew(self, index: int) -> None:
        import ray

        try:
            if await _answers(self.replicas[index]):
                return
            with contextlib.suppress(Exception):  # a replica reported lost is stopped for good, dead or stuck
                ray.kill(self.replicas[index], no_restart=True)
            await self._refill(ray, index)
        finally:
            self._starting.pop(index, None)

    async def _refill(self, ray: Any, index: int) -> None:
        """Start replacements for slot ``index`` until one is ready, the bound is reached or no live node
        can hold one."""
        last = ""
        while self.replaced < self.most:
            self.replaced += 1
            actor = replica_actor(ray, self.gpus).remote(self.model, self.options)
            why, final = await self._placed(ray, actor)
            if not why:
                if self._closing:
                    ray.kill(actor, no_restart=True)
                    return
                self.replicas[index] = actor
                self.generations[index] += 1
                return
            ray.kill(actor, no_restart=True)
            if final:
                self.empty[index] = f"replica {index} not replaced: {why}"[:1000]
                return
            last = f" (the last died while starting: {why})"
        self.empty[index] = (
            f"replica {index} not replaced: the pool already started {self.most} replacements, "
            f"the most per run{last}"
        )[:1000]

    async def _placed(self, ray: Any, actor: Any) -> tuple[str, bool]:
        """``("", _)`` once ``actor`` answers; else why not, and whether that is final (no live node can
        hold it for ``stall_s``, or it was not placed within ``READY_TIMEOUT_S``) rather than a death a
        next replacement may avoid."""
        ready = asyncio.ensure_future(_ready(actor))
        loop = asyncio.get_running_loop()
        began, homeless_since = loop.time(), None
        need = {"CPU": 1.0, "GPU": self.gpus}
        while True:
            await asyncio.wait({ready}, timeout=1.0)
            if ready.done():
                exc = ready.exception()
                return ("", False) if exc is None else (f"{type(exc).__name__}: {exc}"[:500], False)
            now, most = loop.time(), most_on_one_node(ray, need)
            homeless_since = None if most is None else (homeless_since or now)
            if most is not None and homeless_since is not None and now - homeless_since >= self.stall_s:
                ready.cancel()
                return (
                    f"no live node of the cluster can hold a replica ({need['CPU']:g} CPU, {self.gpus:g} "
                    f"GPU(s) each; the live nodes have at most {most['CPU']:g} CPU(s), {most['GPU']:g} "
                    f"GPU(s) each) for {self.stall_s:g} s: the cluster shrank",
                    True,
                )
            if now - began >= READY_TIMEOUT_S:
                ready.cancel()
                return f"its replacement was not placed within {READY_TIMEOUT_S:g} s", True

    async def close(self) -> list[Any]:
        """Start no more replicas; returns those to stop."""
        self._closing = True
        return [r for i, r in enumerate(self.replicas) if i not in self.empty]


async def _ready(actor: Any) -> None:
    await actor.info.remote()


def _stopped_for_good(exc: BaseException) -> bool:
    """Ray says the actor is dead and will not restart (``ActorDiedError``: killed with ``no_restart``, or
    out of restarts), rather than unreachable for a while."""
    try:
        from ray.exceptions import ActorDiedError
    except ImportError:  # no Ray: a stand-in pool in a test
        return False
    return isinstance(exc, ActorDiedError)


async def _answers(replica: Any) -> bool:
    """The replica answers within ``PING_S``."""
    try:
        await asyncio.wait_for(_ready(replica), PING_S)
    except Exception:  # dead, unreachable or stuck
        return False
    return True


class JudgePoolDown(EndpointDown):
    """Every replica of a local judge's pool is gone and none can be started (or its pool is gone):
    the run stops at once, resumably, rather than judging the rest as failures."""

    def __init__(self, judge: str, why: str) -> None:
        OmnievalError.__init__(
            self,
            f"stopped: the judge {judge} has no replica left on the cluster ({why}). Samples not yet "
            "judged stay unfinished: run the same command again to resume, once the cluster can hold a "
            "replica (see --judge-replicas, --judge-gpus-per-replica).",
        )
        self.judge, self.why = judge, why
        self.endpoint, self.cause, self.count = (
            f"judge {judge}",
            Cause("no judge replica left", message=why),
            0,
        )

    def __reduce__(self) -> tuple[type[JudgePoolDown], tuple[str, str]]:  # type: ignore[override]
        return type(self), (self.judge, self.why)


POOL_WAIT_S = 120.0
"""How long a worker keeps asking a pool that does not answer (restarting on a live node after its own
node left) before it takes the slot for lost."""


class PooledJudge(Backend):
    """A worker's stand-in for a local judge: each batch goes to the replica with the fewest of this
    worker's batches in flight (ties in turn). A batch whose replica was lost (it died, its node left,
    Ray could not deliver the call) fails retryable and never counts towards the judge's circuit
    breaker: the runner retries it on another replica or, with none left, on the replacement the pool
    starts. With every slot empty for good the run stops (:class:`JudgePoolDown`, resumable)."""

    def __init__(self, replicas: Sequence[Any], info: dict[str, Any], *, pool: Any = None) -> None:
        super().__init__(info["model"], options=info["options"])
        self.replicas = list(replicas)
        self.info = info
        self.pool = pool
        self.generations = [0] * len(self.replicas)
        self._busy = [0] * len(self.replicas)
        self._lost: dict[int, str] = {}
        """Slots found lost, with why, until the pool gives them a replica again."""
        self._replacing: dict[int, asyncio.Future[None]] = {}
        self._turn = itertools.count()

    def _pick(self) -> int:
        alive = [i for i in range(len(self.replicas)) if i not in self._lost]
        if not alive:  # nothing answers and nothing will: stop the run now, resumably
            raise JudgePoolDown(self.spec, "; ".join(sorted(set(self._lost.values()))))
        start = next(self._turn)
        order = sorted(alive, key=lambda i: (self._busy[i], (i - start) % len(self.replicas)))
        return order[0]

    async def _choose(self) -> int:
        """A live replica; with none, the replacement the pool is starting."""
        while len(self._lost) == len(self.replicas) and self._replacing:
            await asyncio.wait(list(self._replacing.values()), return_when=asyncio.FIRST_COMPLETED)
        return self._pick()

    generate = InProcessBackend.generate  # type: ignore[assignment]  # one request: a batch of one

    async def generate_many(self, requests: Sequence[Request]) -> list[Response | BaseException]:
        index = await self._choose()
        generation = self.generations[index]
        self._busy[index] += 1
        try:
            return list(await self.replicas[index].generate_many.remote(list(requests)))
        except Exception as exc:  # the replica died (or its call could not be delivered): the others carry on
            why = f"{type(exc).__name__}: {exc}"[:300]
            self._lose(index, generation, why)
            # transient for the breaker (no status, no transport kind): the next attempt goes to another
            # replica or waits for the replacement; with none coming, it raises JudgePoolDown
            raise BackendError(f"judge {self.spec}: replica {index} lost ({why})", retryable=True) from None
        finally:
            self._busy[index] -= 1

    def _lose(self, index: int, generation: int, why: str) -> None:
        if generation != self.generations[index] or index in self._lost:  # already replaced, or already known
            return
        self._lost[index] = f"replica {index}: {why}"
        if self.pool is not None:
            self._replacing[index] = asyncio.ensure_future(self._replace(index, generation))

    async def _replace(self, index: int, generation: int) -> None:
        try:
            slot = await self._ask_pool(index, generation)
            if isinstance(slot, str):
                self._lost[index] = slot
            else:  # a replacement, the same replica (it still answers), or a restarted pool's
                self.generations[index], self.replicas[index] = slot
                self._lost.pop(index, None)
        finally:  # whatever the answer, nobody waits on this replacement any more
            del self._replacing[index]

    async def _ask_pool(self, index: int, generation: int) -> Slot:
        """The pool's answer for the lost slot. Ray restarts a pool whose node left and retries the calls
        in flight; a call that fails meanwhile is made again, for up to ``POOL_WAIT_S``."""
        loop = asyncio.get_running_loop()
        began, delay = loop.time(), 0.5
        while True:
            try:
                return await self.pool.replace.remote(index, generation)  # type: ignore[no-any-return]
            except Exception as exc:
                why = f"{type(exc).__name__}: {exc}"
                if _stopped_for_good(exc) or loop.time() - began >= POOL_WAIT_S:
                    return f"replica {index} not replaced: its pool is gone ({why})"[:1000]
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    def max_connections(self) -> int:
        return int(self.info["max_connections"])

    def describe(self) -> dict[str, Any]:
        return dict(self.info["describe"])

    def identity(self) -> str:
        return str(self.info["identity"])

    def endpoint(self) -> str:
        return str(self.info["endpoint"])

    def sep_token(self) -> str:
        if self.info["sep"] is None:
            return super().sep_token()
        return str(self.info["sep"])

    def truncations(self, text: str, *, max_tokens: int, offset: int) -> list[str]:
        """The replica's tokenizer decides (a short blocking call: the judge engine asks synchronously)."""
        import ray

        index = self._pick()
        return list(ray.get(self.replicas[index].truncations.remote(text, max_tokens, offset)))


def pooled(route: JudgeRoute) -> PooledJudge:
    cls = type(f"Pooled{route.info['provider']}", (PooledJudge,), {k: route.info[k] for k in CAPABILITIES})
    return cls(route.replicas, route.info, pool=route.pool)


class WorkerJudges:
    """One worker's judge backends, kept across its shards; :meth:`backend` is the runner's judge factory."""

    def __init__(self, routes: dict[str, JudgeRoute], *, owner: str) -> None:
        self.routes = routes
        self.owner = owner
        self.gates: dict[str, GateClient] = {}
        self._backends: dict[str, Backend] = {}

    def backend(self, model: str, options: BackendOptions) -> Backend:
        if model not in self._backends:
            route = self.routes.get(model)
            if route is not None and route.kind == "pool":
                self._backends[model] = pooled(route)
            else:
                gate = None
                if route is not None and route.gate is not None:
                    gate = self.gates[model] = GateClient(route.gate, self.owner, cap=route.limit)
                self._backends[model] = share(create_judge_backend(model, options=options), gate=gate)
        return self._backends[model]

    async def tick(self) -> None:
        for gate in self.gates.values():
            await gate.tick()

    def give_back(self) -> None:
        for gate in self.gates.values():
            gate.give_back()

    async def aclose(self) -> None:
        for backend in self._backends.values():
            if isinstance(backend, SharedBackend):
                await backend.inner.aclose()
        self._backends.clear()


@dataclass
class JudgesOnCluster:
    """The driver's side: each judge model's gate or replica pool, and what the manifest says about them."""

    ray: Any
    routes: dict[str, JudgeRoute] = field(default_factory=dict)
    gpus_per_replica: float = 0.0
    shared: bool = False
    """Started by a sweep for all its models: a run hands back its workers' slots but keeps the replicas
    (the sweep stops them with :meth:`close`)."""

    def forget(self, owner: str) -> None:
        """A worker died: its judge gate slots go back."""
        for route in self.routes.values():
            if route.gate is not None:
                route.gate.forget.remote(owner)

    def block(self) -> dict[str, Any]:
        """Per judge model: its gate's limit and peak, or its pool's replicas and their work."""
        out: dict[str, Any] = {}
        for model, route in self.routes.items():
            if route.kind == "gate":
                stats = self.ray.get(route.gate.stats.remote())
                out[model] = {"kind": "gate", "endpoint": route.info.get("endpoint_key"), **stats}
            else:
                state = self._pool_state(route)
                replicas = [
                    {"lost": slot} if isinstance(slot, str) else self._stats(slot[1])
                    for slot in state["slots"]
                ]
                out[model] = {
                    "kind": "pool",
                    "replicas": len(route.replicas),
                    "gpus_per_replica": self.gpus_per_replica,
                    "replaced": state["replaced"],
                    "node": state.get("node"),
                    "replica_stats": replicas,
                }
        return out

    def _pool_state(self, route: JudgeRoute) -> dict[str, Any]:
        """The pool's current replicas (replacements included) and how many it replaced."""
        try:
            return dict(self.ray.get(route.pool.state.remote(STATE_WAIT_S), timeout=STATE_WAIT_S + 30))
        except Exception as exc:  # the pool actor is gone: its first replicas are all we know of
            return {"slots": [(0, r) for r in route.replicas], "replaced": f"unknown ({type(exc).__name__})"}

    def _stats(self, replica: Any) -> dict[str, Any]:
        try:
            return dict(self.ray.get(replica.stats.remote(), timeout=30))
        except Exception as exc:  # a lost replica: the run's records stand, the manifest says so
            return {"lost": f"{type(exc).__name__}: {exc}"[:300]}

    def stop(self, *, owners: list[str]) -> None:
        """Stop the replicas; the stopped workers' judge-gate slots go back (a judge gate outlives the run
        when a sweep's models share it)."""
        forgotten = [
            r.gate.forget.remote(o) for r in self.routes.values() if r.gate is not None for o in owners
        ]
        with contextlib.suppress(Exception):
            self.ray.get(forgotten, timeout=30)
        if not self.shared:
            self.close()

    def covers(self, models: Sequence[str]) -> None:
        """A shared pool must serve every judge model of the run that uses it."""
        missing = sorted(set(models) - set(self.routes))
        if missing:
            raise ConfigError(f"the sweep's judges {sorted(self.routes)} do not include {missing}")

    def close(self) -> None:
        """Stop the replicas."""
        for route in self.routes.values():
            replicas = list(route.replicas)
            if route.pool is not None:
                with contextlib.suppress(
                    Exception
                ):  # the pool is gone: its first replicas are all we know of
                    replicas = list(self.ray.get(route.pool.close.remote(), timeout=30))
            for replica in replicas:
                with contextlib.suppress(Exception):  # a dead or stuck replica: nothing to close
                    self.ray.get(replica.close.remote(), timeout=30)
                self.ray.kill(replica, no_restart=True)
            if route.pool is not None:
                self.ray.kill(route.pool, no_restart=True)  # with it go the replacements it started


@dataclass(frozen=True)
class JudgePlan:
    """The run's judges as the driver sees them (never loaded here) and what their pools will take."""

    judges: dict[str, tuple[Backend, BackendOptions]]
    """Judge model → its backend (described, not loaded) and options."""
    replicas: int
    gpus_per_replica: float

    @property
    def pools(self) -> int:
        """Local judges: each gets ``replicas`` actors."""
        return sum(1 for backend, _ in self.judges.values() if is_local(backend))

    def annotate(self, described: dict[str, Any]) -> dict[str, Any]:
        """The manifest's ``judges`` block (per task, as the shards described it) with where each judge
        ran."""
        where = {backend.spec: self._where(backend) for backend, _ in self.judges.values()}
        return {
            task: {**entry, "cluster": where[entry["judge"]]} if entry.get("judge") in where else entry
            for task, entry in described.items()
        }

    def _where(self, backend: Backend) -> dict[str, Any]:
        if is_local(backend):
            return {"kind": "pool", "replicas": self.replicas, "gpus_per_replica": self.gpus_per_replica}
        return {"kind": "gate", "limit": backend.max_connections()}

    def reserved(self) -> dict[str, float]:
        """Cluster resources the judge replicas take (the default worker count leaves them free)."""
        n = self.pools * self.replicas
        return {"CPU": float(n), "GPU": n * self.gpus_per_replica}


def plan_judges(
    config: RunConfig, tasks: list[Task], options: ExecutorOptions, *, cluster_gpus: float
) -> JudgePlan:
    """Each judge model of the run; replicas and GPUs per replica for the local ones."""
    if options.judge_replicas < 1:
        raise ConfigError(f"--judge-replicas must be at least 1, got {options.judge_replicas}")
    judges = {
        model: (create_judge_backend(model, options=o), o)
        for model, o in judge_models(tasks, config.judge).items()
    }
    gpus = options.judge_gpus_per_replica
    if gpus is None:
        gpus = 1.0 if cluster_gpus >= 1 else 0.0
    return JudgePlan(judges, options.judge_replicas, gpus)


def start_judges(ray: Any, plan: JudgePlan) -> JudgesOnCluster:
    """A gate per API judge, started replica actors per local judge."""
    fleet = JudgesOnCluster(ray, gpus_per_replica=plan.gpus_per_replica)
    for model, (backend, options) in plan.judges.items():
        if is_local(backend):
            fleet.routes[model] = _pool(
                ray, model, options, replicas=plan.replicas, gpus=plan.gpus_per_replica
            )
        else:
            fleet.routes[model] = _gate(ray, model, backend, options)
    return fleet


def _gate(ray: Any, model: str, backend: Backend, options: BackendOptions) -> JudgeRoute:
    """The judge's own gate, named by its endpoint and model: locally each judge model has its own pool,
    apart from the model under test's, so a server both use sees the two limits added, on Ray as here."""
    key = endpoint_key(backend, options)
    name = "omnieval-judge-gate-" + uuid.uuid5(uuid.NAMESPACE_URL, f"{key}|{model}").hex[:12]
    limit = backend.max_connections()
    gate = (
        ray.remote(EndpointGate)
        .options(name=name, get_if_exists=True, max_concurrency=10_000, **pinned(ray))
        .remote(limit)
    )
    return JudgeRoute(kind="gate", gate=gate, limit=limit, info={"endpoint_key": key})


def _pool(ray: Any, model: str, options: BackendOptions, *, replicas: int, gpus: float) -> JudgeRoute:
    """The replicas, started and ready, and their :class:`JudgePool` (named ``omnieval-judge-pool-…``).
    A replica no node of the cluster could hold is refused at once (Ray would leave it pending)."""
    most_there = most_on_one_node(ray, {"CPU": 1.0, "GPU": gpus})
    if most_there is not None:
        raise ConfigError(
            f"judge {model}: each replica asks for 1 CPU and {gpus:g} GPU(s) (--judge-gpus-per-replica), but "
            f"no node of the cluster has that much (at most {most_there['CPU']:g} CPU(s) and "
            f"{most_there['GPU']:g} GPU(s) on one node); use --judge-gpus-per-replica 0 to run it on CPUs"
        )
    cls = replica_actor(ray, gpus)
    actors = tuple(cls.remote(model, options) for _ in range(replicas))
    try:
        infos = ray.get([a.info.remote() for a in actors], timeout=READY_TIMEOUT_S)
    except Exception as exc:
        for actor in actors:
            ray.kill(actor, no_restart=True)
        raise ConfigError(
            f"judge {model}: its {replicas} replica(s) ({gpus:g} GPU each) did not start: {exc}"
        ) from None
    name = f"omnieval-judge-pool-{uuid.uuid4().hex[:12]}"
    pool = ray.remote(JudgePool).options(name=name, max_concurrency=1000, **{"num_cpus": 0, **pinned(ray)})
    most = max(MIN_REPLACEMENTS, replicas)
    keeper = pool.remote(model, options, actors, gpus=gpus, most=most, stall_s=UNHOSTABLE_S)
    return JudgeRoute(kind="pool", replicas=actors, info=infos[0], pool=keeper)
