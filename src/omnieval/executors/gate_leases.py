"""The run's share of the endpoint's concurrency gate (:mod:`omnieval.executors.gate`) and of the judges'.

A run's gate goes through :class:`GateStage`: none for a local model; else, on an endpoint this process
has no gate for yet, the run reserves every slot (in :data:`LONE`): a lone worker holds them all itself
and no gate is ever started (``LONE``), or, with several workers, the gate is created when the first
worker starts, holding every slot for it (``DUE``, then ``OPEN``); a gate the driver has already (a
sweep's, or one another run of this process created meanwhile) is ``OPEN`` from the start. A lost or
stopped worker's slots are handed back (:meth:`GateLeases.forget`).
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from enum import Enum
from typing import Any

from omnieval.backends import Backend
from omnieval.executors.errors import ExecutorError, last_line
from omnieval.executors.judge_cluster import JudgesOnCluster, endpoint_key
from omnieval.executors.ray_port import Actor, RayPort, RealRay, Ref
from omnieval.runner import RunConfig

__all__ = ["GATES", "LONE", "READY_S", "GateLeases", "GateStage", "endpoint_gate", "gate_name"]

GATES = threading.RLock()
"""Held while a run finds or creates its endpoint's gate (a sweep's models share one, from threads)."""

LONE: dict[str, str] = {}
"""Endpoint (gate name) → the run of this process that reserved all its slots and has no gate (a lone
worker's, or one whose first worker is still starting). A run that comes to the same endpoint meanwhile
creates the gate holding them all; the reserving run hands them back when it ends or opens its gate."""

READY_S = 120.0
"""How long the driver waits for the endpoint's gate to start."""


def gate_name(backend: Backend, config: RunConfig) -> str:
    return "omnieval-gate-" + uuid.uuid5(uuid.NAMESPACE_URL, endpoint_key(backend, config.backend)).hex[:12]


def endpoint_gate(
    ray: Any, backend: Backend, config: RunConfig, *, leases: dict[str, int] | None = None
) -> Any:
    """The endpoint's gate actor (named by provider and base URL): every run on that endpoint, a
    sweep's concurrent models included, gets the same one while anyone holds a handle to it.
    ``leases``: slots already granted to workers, for a gate this call creates."""
    with GATES:
        return RealRay(ray).gate(gate_name(backend, config), config.backend.concurrency, leases=leases)


class GateStage(Enum):
    NONE = "none"
    """A local model: no endpoint, no gate."""
    LONE = "lone"
    """Every slot reserved for the run's one worker, which holds them itself: no gate is ever started."""
    DUE = "due"
    """Every slot reserved; the gate is created when the first worker starts."""
    OPEN = "open"
    """The gate exists: workers lease their slots from it."""


class GateLeases:
    """The run's gates: the endpoint's (see :class:`GateStage`) and the judges' (``judges``)."""

    def __init__(
        self, port: RayPort, *, name: str, limit: int, session: str, judges: JudgesOnCluster | None = None
    ) -> None:
        self.port, self.name, self.limit, self.judges = port, name, limit, judges
        self.reservation = f"lone-{session}"
        """This run's name in :data:`LONE` (and its owner name in a gate another run creates meanwhile)."""
        self.stage = GateStage.NONE
        self.gate: Actor | None = None
        self.grants: dict[str, int] = {}
        """Slots a worker gets with its next shard: those the gate was created holding for it."""
        self.coordinators: list[Ref] = []
        """The gate's first answer, not yet in: the run goes on meanwhile."""
        self.since = time.monotonic()

    def begin(self, *, local_model: bool, workers: int) -> int | None:
        """Reserve the endpoint's slots or find its gate (call under :data:`GATES`); the lease each of the
        first ``workers`` gets: all slots (a lone worker), 0 (its gate comes later), or ``None`` (it
        leases from the gate, or has no endpoint)."""
        if local_model:
            return None
        lone = LONE.get(self.name)
        if lone is None and self.port.named_actor(self.name) is None:
            LONE[self.name] = self.reservation
            self.stage = GateStage.DUE if workers > 1 else GateStage.LONE
            return self.limit if workers == 1 else 0
        # a sweep's gate; or one created holding another run's reserved slots
        self.gate = self.port.gate(self.name, self.limit, leases={lone: self.limit} if lone else None)
        self.stage, self.coordinators = GateStage.OPEN, [self.port.call(self.gate, "stats")]
        return None

    def replacement_lease(self) -> int | None:
        """A replacement worker's lease: every slot while the run holds them without a gate."""
        return self.limit if self.reserved else None

    @property
    def reserved(self) -> bool:
        return self.stage in (GateStage.LONE, GateStage.DUE)

    def worker_started(self, owner: str) -> Actor | None:
        """A worker started: in ``DUE``, create the gate holding every slot for it (handed over with its
        first shard, see :meth:`grant`) and return it, for every worker to attach; the reservation in
        :data:`LONE` ends. Should another run of this process have created the gate meanwhile (holding
        this run's reserved slots), those slots go back and the workers lease theirs."""
        if self.stage is not GateStage.DUE:
            return None
        with GATES:
            existed = self.port.named_actor(self.name) is not None
            self.end_reservation()
            leases = None if existed else {owner: self.limit}
            self.gate = self.port.gate(self.name, self.limit, leases=leases)
            self.stage = GateStage.OPEN
        if leases:
            self.grants[owner] = self.limit
        self.coordinators, self.since = [self.port.call(self.gate, "stats")], time.monotonic()
        return self.gate

    def end_reservation(self) -> None:
        """Hand back the slots this run reserved in :data:`LONE`, also from a gate another run of this
        process created holding them meanwhile."""
        if not self.reserved:
            return
        self.stage = GateStage.NONE if self.gate is None else GateStage.OPEN
        with GATES:
            if LONE.get(self.name) != self.reservation:
                return
            del LONE[self.name]
            gate = self.port.named_actor(self.name)
            if gate is not None:  # (none: nobody came to the endpoint meanwhile)
                self.port.call(gate, "forget", self.reservation)

    def grant(self, owner: str) -> int:
        """The slots the gate was created holding for ``owner`` (sent with each shard: a shard refused as
        unavailable may never have run; the worker takes them once)."""
        return self.grants.get(owner, 0)

    def is_first_answer(self, ref: Ref) -> bool:
        """Whether ``ref`` is the gate's first answer (a failure stops the run: see :meth:`check`)."""
        if ref not in self.coordinators:
            return False
        self.coordinators.remove(ref)
        self.check([ref], timeout=READY_S)
        return True

    def check_overdue(self) -> None:
        """The gate's first answer, once it is more than :data:`READY_S` late."""
        if self.coordinators and time.monotonic() - self.since > READY_S:
            self.check(self.coordinators, timeout=0)

    def check(self, refs: list[Ref], *, timeout: float) -> None:
        """The coordinators answer (they fail at once where omnieval is missing from the cluster's Python)."""
        try:
            self.port.get(refs, timeout=timeout)
        except Exception as exc:
            raise ExecutorError(
                f"the run's coordinators did not start on the cluster: {last_line(exc)} (is omnieval "
                "installed on every node, in the same version? see --ray-runtime-env)"
            ) from None

    def stats(self) -> dict[str, Any]:
        """The model's gate as the run ends (its limit, peak and node), or nothing without one."""
        if self.gate is None:
            return {}
        try:
            return dict(self.port.get(self.port.call(self.gate, "stats"), timeout=30))
        except Exception:  # the manifest goes without it; the run's records stand
            return {}

    def forget(self, owners: list[str]) -> None:
        """The gates hand back these owners' slots. Said again once their node is known gone: a gate on that
        node may have taken the first word with it (Ray restarts it empty), and a lost worker's process
        can outlive its node for some seconds and re-register its slots with the restarted gate."""
        for owner in owners:
            if self.gate is not None:
                self.port.call(self.gate, "forget", owner)
            if self.judges is not None:
                self.judges.forget(owner)

    def forget_one(self, owner: str) -> Ref | None:
        """A stopped worker's endpoint slots go back (the answer, to wait for in :meth:`close`)."""
        return None if self.gate is None else self.port.call(self.gate, "forget", owner)

    def close(self, forgotten: list[Ref], *, owners: list[str]) -> None:
        """The run ends: wait for the slots handed back, stop the judges' part, end the reservation."""
        with contextlib.suppress(Exception):  # the gate is gone too: nobody holds its slots
            self.port.get(forgotten, timeout=30)
        if self.judges is not None:
            self.judges.stop(owners=owners)
        self.end_reservation()
