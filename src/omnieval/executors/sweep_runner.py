"""Several models of a sweep at once from one driver: one thread per running model, one display.

Each running model is an ordinary Ray run (:func:`omnieval.executors.ray_executor.run_on_ray`, via the
caller's ``run_model``) in its own thread: Ray's driver API is thread-safe and a run spends its time
waiting on its workers, so a thread per model is the least code that keeps every run's guarantees
(its own run directory, manifest, shards and resume). The threads share the endpoint gates (named by
endpoint) and one progress display with a row per model. A model that fails is recorded with its
error; the others go on.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from omnieval.errors import ConfigError, OmnievalError
from omnieval.executors.judge_cluster import is_local
from omnieval.executors.options import ExecutorOptions
from omnieval.executors.ray_executor import describe_model
from omnieval.executors.sweep import sweep_shape
from omnieval.registry import load_plugins
from omnieval.runner import RunConfig
from omnieval.runner.progress import Progress
from omnieval.types.results import ResultsFile

__all__ = [
    "ModelRow",
    "ModelRun",
    "RunModel",
    "SweepStopped",
    "plan_runs",
    "run_models",
    "shared_gates",
    "shared_judges",
]

RunModel = Callable[[RunConfig, ExecutorOptions, Progress | None], ResultsFile]
"""Runs (or resumes) one model and returns its results (its ``run_dir`` set)."""


class SweepStopped(OmnievalError):
    """The sweep was interrupted while this model ran."""


@dataclass
class ModelRun:
    """One model of the sweep: what to run, and how it ended."""

    name: str
    config: RunConfig
    executor: ExecutorOptions
    status: str = "pending"
    """``finished`` or ``failed`` once run."""
    results: ResultsFile | None = None
    error: str | None = None


class ModelRow(Progress):
    """One model's tasks folded into one row of the sweep's display (samples done, errors, ETA).

    A run reports per task (``add`` for every task first, then ``update`` and ``finish``); the row
    appears at the first update with the total of all tasks and closes when every task finished.
    The run reports about every half second, so the row is also where an interrupted sweep stops
    it: once ``stop`` is set, the next report raises :class:`SweepStopped` and the run ends as on
    any error (its workers stopped, its finished shards kept).
    """

    def __init__(self, display: Progress, name: str, *, stop: threading.Event | None = None) -> None:
        super().__init__(quiet=True)  # draws nothing itself
        self.display, self.name = display, name
        self.stop = stop or threading.Event()
        self._totals: dict[str, int | None] = {}
        self._done: Counter[str] = Counter()
        self._states: dict[str, dict[str, int]] = {}
        self._finished: set[str] = set()
        self._shown = False

    def add(self, name: str, total: int | None, *, done: int = 0) -> None:
        self._totals[name], self._done[name] = total, done

    def update(self, name: str, *, done: int, states: dict[str, int], retries: int = 0) -> None:
        self._check()
        self._show()
        self._done[name], self._states[name] = done, states
        self.display.update(self.name, done=sum(self._done.values()), states=self._summed(), retries=retries)

    def finish(self, name: str, *, states: dict[str, int]) -> None:
        self._show()
        self._states[name] = states
        self._finished.add(name)
        if self._finished >= set(self._totals):
            self.display.update(self.name, done=sum(self._done.values()), states=self._summed())
            self.display.finish(self.name, states=self._summed())

    def _check(self) -> None:
        if self.stop.is_set():
            raise SweepStopped(
                f"{self.name}: the sweep was interrupted; run the same command again to resume"
            )

    def _show(self) -> None:
        if not self._shown:
            self._shown = True
            known = [t for t in self._totals.values() if t is not None]
            total = sum(known) if len(known) == len(self._totals) else None
            self.display.add(self.name, total, done=sum(self._done.values()))

    def _summed(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for states in self._states.values():
            total.update(states)
        return dict(total)


def _run_one(run: ModelRun, run_model: RunModel, row: Progress | None) -> None:
    try:
        run.results = run_model(run.config, run.executor, row)
        run.status = "finished"
    except Exception as exc:  # one model's failure (a dead endpoint, a bad task) must not stop the others
        run.status, run.error = "failed", str(exc) or type(exc).__name__
        if not isinstance(exc, OmnievalError):  # a bug, not a bad input: keep its traceback
            traceback.print_exc()
        print(f"[omnieval] sweep: {run.name} failed: {run.error}", file=sys.stderr)


def run_models(
    runs: list[ModelRun], *, models_at_once: int, run_model: RunModel, quiet: bool
) -> list[ModelRun]:
    """Run every model, at most ``models_at_once`` at a time, in the given order; returns ``runs``
    with each one's status. One at a time: here, each run with its own bars (as a single run);
    several: one thread each and one display with a row per model."""
    for run in [] if quiet else runs:  # the plan; a model's failure is printed even when quiet
        print(f"[omnieval] sweep: {run.name} ({run.config.model}) → {run.config.output}", file=sys.stderr)
    load_plugins()  # here, once: the threads would otherwise race to import the plugins
    if models_at_once <= 1:
        for run in runs:
            _run_one(run, run_model, None)
        return runs
    stop = threading.Event()
    with (
        Progress(quiet=quiet, elapsed_label="run wall time") as display,
        ThreadPoolExecutor(max_workers=models_at_once, thread_name_prefix="sweep") as pool,
    ):
        futures = [
            pool.submit(_run_one, run, run_model, ModelRow(display, run.name, stop=stop)) for run in runs
        ]
        try:
            wait(futures)
        except BaseException:  # Ctrl-C: queued models never start, running ones stop at their next report
            stop.set()
            for future in futures:
                future.cancel()
            raise
    return runs


def _is_local(config: RunConfig) -> bool:
    """An in-process model (``hf/``, ``vllm/``...): its replicas may take GPUs (never loaded here)."""
    return is_local(describe_model(config))


@contextlib.contextmanager
def shared_gates(runs: list[ModelRun]) -> Iterator[list[Any]]:
    """Hold every API endpoint's gate for the whole sweep: a gate lives while someone holds a handle,
    so without this one model's run ending could drop the gate just as the next model on the same
    endpoint asks for it. Nothing to hold for local sweeps."""
    gates = []
    if any(run.executor.kind == "ray" for run in runs):
        import ray

        from omnieval.executors.ray_executor import endpoint_gate

        for run in runs:
            if not _is_local(run.config):
                gates.append(endpoint_gate(ray, describe_model(run.config), run.config))
    yield gates


@contextlib.contextmanager
def shared_judges(
    configs: list[tuple[str, RunConfig]], executor: ExecutorOptions, *, resources: dict[str, float] | None
) -> Iterator[tuple[Any, dict[str, float] | None]]:
    """On Ray, the sweep's judges started once for every model (a local judge's replicas load it once per
    sweep, not once per model), and the cluster resources left for the models' workers."""
    if executor.kind != "ray" or resources is None or not configs:
        yield None, resources
        return
    import ray

    from omnieval.executors.judge_cluster import plan_judges, start_judges
    from omnieval.runner import resolve_tasks

    config = configs[0][1]  # every model of a sweep has the same tasks and judge
    plan = plan_judges(
        config,
        resolve_tasks(config.tasks, strict_metrics=config.strict_metrics),
        executor,
        cluster_gpus=resources.get("GPU", 0.0),
    )
    if not plan.judges:
        yield None, resources
        return
    judges = start_judges(ray, plan)
    judges.shared = True
    reserved = plan.reserved()
    try:
        yield judges, {k: v - reserved.get(k, 0.0) for k, v in resources.items()}
    finally:
        judges.close()


def plan_runs(
    configs: list[tuple[str, RunConfig]],
    executor: ExecutorOptions,
    *,
    models_at_once: int | None,
    resources: dict[str, float] | None,
) -> tuple[list[ModelRun], int]:
    """Each model's run with its executor options (its share of workers), and the models run at once.

    ``resources``: the Ray cluster's (``ray.cluster_resources()``); a local sweep runs one model at a time.
    """
    if executor.kind != "ray" or resources is None:
        if models_at_once not in (None, 1):
            raise ConfigError(
                "--models-at-once needs --executor ray (a local sweep runs one model at a time)"
            )
        return [ModelRun(name, config, executor) for name, config in configs], 1
    shape = sweep_shape(
        local=[_is_local(c) for _, c in configs],
        cpus=resources.get("CPU", 0.0),
        gpus=resources.get("GPU", 0.0),
        options=executor,
        models_at_once=models_at_once,
    )
    runs = [
        ModelRun(name, config, executor.model_copy(update={"workers": workers}))
        for (name, config), workers in zip(configs, shape.workers, strict=True)
    ]
    return runs, shape.models_at_once
