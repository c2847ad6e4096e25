"""A stand-in for Ray behind the Ray executor's :class:`~omnieval.executors.ray_port.RayPort`: actors are
plain records, every call is logged and answered at once (by ``answers``), so the worker pool, the gate
leases, the shard queue and the driver's state machine run without a cluster."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from omnieval.executors.ray_port import Failure

__all__ = ["FakeActor", "FakeFailure", "FakeRay", "FakeRef"]


class FakeFailure(Exception):
    """An answer's error, saying what Ray's would (:meth:`FakeRay.failure`)."""

    def __init__(self, failure: Failure, text: str = "", cause: BaseException | None = None) -> None:
        super().__init__(text or failure.value)
        self.failure, self.cause = failure, cause


@dataclass(eq=False)
class FakeActor:
    name: str
    kind: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class FakeRef:
    actor: FakeActor | None
    method: str
    args: tuple[Any, ...]
    answer: Any = None
    error: BaseException | None = None


Answer = Callable[[FakeActor, tuple[Any, ...]], Any]
"""Answers one method's call; raising makes the reference raise on ``get``."""


@dataclass
class FakeRay:
    """Ray, to the executor's parts: a cluster of ``alive`` nodes with ``free`` resources."""

    alive: set[str] = field(default_factory=lambda: {"node-a"})
    free: dict[str, float] = field(default_factory=lambda: {"CPU": 8.0})
    answers: dict[str, Answer] = field(
        default_factory=lambda: {"where": lambda _a, _b: {"node_id": "node-a"}, "progress": lambda _a, _b: {}}
    )
    """Per method; by default every worker is placed on ``node-a`` and has no progress to report."""
    calls: list[tuple[str, str, tuple[Any, ...]]] = field(default_factory=list)
    """(actor's name, method, arguments) of every call; ``kill`` as ``("ray", "kill", (name,))``."""
    workers: list[FakeActor] = field(default_factory=list)
    named: dict[str, FakeActor] = field(default_factory=dict)
    gates_created: list[dict[str, int] | None] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    def worker(self, options: Mapping[str, Any], *args: Any, **kwargs: Any) -> FakeActor:
        actor = FakeActor(str(kwargs["owner"]), "worker", {"options": dict(options), **kwargs})
        self.workers.append(actor)
        return actor

    def gate(self, name: str, limit: int, *, leases: dict[str, int] | None) -> FakeActor:
        if name not in self.named:
            self.gates_created.append(leases)
            self.named[name] = FakeActor(name, "gate", {"limit": limit, "leases": leases})
        return self.named[name]

    def named_actor(self, name: str) -> FakeActor | None:
        return self.named.get(name)

    def call(self, actor: FakeActor, method: str, *args: Any) -> FakeRef:
        self.calls.append((actor.name, method, args))
        ref = FakeRef(actor, method, args)
        answer = self.answers.get(method)
        try:
            ref.answer = answer(actor, args) if answer is not None else None
        except Exception as exc:  # raised again by get
            ref.error = exc
        return ref

    def get(self, refs: Any, *, timeout: float | None = None) -> Any:
        if isinstance(refs, list):
            return [self.get(ref) for ref in refs]
        if refs.error is not None:
            raise refs.error
        return refs.answer

    def wait(self, refs: list[Any], *, num_returns: int, timeout: float) -> list[Any]:
        return refs[:num_returns]

    def kill(self, actor: FakeActor) -> None:
        self.calls.append(("ray", "kill", (actor.name,)))

    def put(self, value: Any) -> FakeRef:
        return FakeRef(None, "put", (value,), answer=value)

    def live_nodes(self) -> set[str]:
        return set(self.alive)

    def available_resources(self) -> dict[str, float]:
        return dict(self.free)

    def near(self, node: str | None) -> dict[str, Any]:
        return {} if node is None else {"near": node}

    def failure(self, exc: BaseException) -> Failure | None:
        return exc.failure if isinstance(exc, FakeFailure) else None

    def said(self, method: str) -> list[tuple[str, tuple[Any, ...]]]:
        """(actor's name, arguments) of each call of ``method``."""
        return [(who, args) for who, m, args in self.calls if m == method]
