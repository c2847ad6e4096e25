"""Flat keywords (``temperature=0.0, batch_size=2, quiet=True``) → the option models → the engine's
configurations (:class:`~omnieval.runner.RunConfig`, :class:`~omnieval.backends.BackendOptions`,
:class:`~omnieval.executors.ExecutorOptions`, :class:`~omnieval.runner.JudgeConfig`)."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omnieval.backends import BackendOptions, check_backend_options
from omnieval.errors import ConfigError
from omnieval.executors import ExecutorOptions
from omnieval.options.models import GROUPS, HowToRun, JudgeOptions, WhatToRun, WhatToWrite
from omnieval.runner import JudgeConfig, RetryPolicy, RunConfig
from omnieval.types._base import Frozen

if TYPE_CHECKING:
    from omnieval.executors.sweep import SweepSpec

__all__ = [
    "RENAMED",
    "RunOptions",
    "backend_options",
    "check_keywords",
    "executor_options",
    "joined_tasks",
    "judge_config",
    "option_names",
    "run_config",
    "run_judge",
    "run_options",
    "sweep_configs",
]

RENAMED = {
    "generation": "temperature, max_tokens, top_p, stop, gen_seed",
    "use_cache": "cache",
    "timeout_s": "timeout",
    "runtime_env": "ray_runtime_env",
    "kind": "executor",
    "extra": "backend_opt",
    "media": "media_opt",
    "retry": "max_attempts",
    "batch": "batch_api",
    "batch_poll_s": "batch_api_poll",
    "batch_pending": "batch_api_pending",
}
"""Keywords of earlier versions (engine field names) → the option that replaced them, for the error."""


@functools.cache
def option_names() -> dict[str, type[Frozen]]:
    """Every option keyword → the option model that holds it."""
    return {name: group for group in GROUPS for name in group.model_fields}


class RunOptions(Frozen):
    """All the keyword options of a run, one model per concern."""

    what: WhatToRun = WhatToRun()
    how: HowToRun = HowToRun()
    judges: JudgeOptions = JudgeOptions()
    write: WhatToWrite = WhatToWrite()
    ready_judge: JudgeConfig | None = None
    """``judge=`` given as a ready ``JudgeConfig`` (or a mapping of its fields) instead of a spec."""


def check_keywords(keywords: Mapping[str, Any], *, caller: str, own: str) -> None:
    """A ``TypeError`` naming ``caller``, the unknown keywords with a did-you-mean, its own keywords
    (``own``) and the option keywords."""
    known = option_names()
    unknown = sorted(set(keywords) - set(known))
    if not unknown:
        return
    hints = [hint for name in unknown if (hint := _did_you_mean(name, known))]
    raise TypeError(
        f"{caller}() got unexpected keyword argument(s) {unknown}"
        + (f" ({'; '.join(hints)})" if hints else "")
        + f"; it takes {own} and {sorted(known)}"
    )


def _did_you_mean(name: str, known: Mapping[str, object]) -> str:
    if name in RENAMED:
        return f"{name}: now {RENAMED[name]}"
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"did you mean {close[0]}?" if close else ""


def run_options(keywords: Mapping[str, Any], *, caller: str = "evaluate", own: str = "") -> RunOptions:
    """The option models from flat keywords; an unknown keyword is a ``TypeError`` (with a did-you-mean),
    a bad value a ``pydantic.ValidationError`` naming the keyword."""
    check_keywords(keywords, caller=caller, own=own or "model, tasks, output, warm_up")
    keywords = dict(keywords)
    ready = _ready_judge(keywords, caller=caller)
    known = option_names()
    parts: dict[type[Frozen], dict[str, Any]] = {group: {} for group in GROUPS}
    for key, value in keywords.items():
        parts[known[key]][key] = value
    built = RunOptions(
        what=WhatToRun(**parts[WhatToRun]),
        how=HowToRun(**parts[HowToRun]),
        judges=JudgeOptions(**parts[JudgeOptions]),
        write=WhatToWrite(**parts[WhatToWrite]),
        ready_judge=ready,
    )
    if built.how.cost_limit is not None and built.how.executor != "local":
        raise ConfigError(
            "--cost-limit needs --executor local (shards on Ray would each count their own spending)"
        )
    return built


def _decoding(
    *,
    temperature: float | None,
    max_tokens: int | None,
    top_p: float | None,
    stop: Sequence[str] | None,
    seed: int | None,
) -> dict[str, Any]:
    """The decoding overrides given (the model's or the judge's), unset ones left out."""
    given = {
        "temperature": temperature,
        "max_tokens": max_tokens,
        "top_p": top_p,
        "stop": tuple(stop) if stop else None,
        "seed": seed,
    }
    return {k: v for k, v in given.items() if v is not None}


def backend_options(options: RunOptions) -> BackendOptions:
    """The model's connection options."""
    how = options.how
    return BackendOptions(
        base_url=how.base_url,
        api_key=how.api_key,
        concurrency=how.concurrency,
        timeout_s=how.timeout,
        device=how.device,
        dtype=how.dtype,
        batch_size=how.batch_size,
        stream=how.stream,
        extra=how.backend_opt,
        media=options.what.media_opt,
    )


def run_judge(options: RunOptions) -> JudgeConfig | None:
    """The run's judge: the ready one given, or the one the judge options describe."""
    return options.ready_judge if options.ready_judge is not None else judge_config(options.judges)


def judge_config(judges: JudgeOptions) -> JudgeConfig | None:
    """The ``JudgeConfig`` the judge options describe (checked against the judge's backend), or ``None``
    without a judge."""
    if judges.judge is None:
        return None
    from omnieval.judges.backends import effective_judge_spec

    backend = BackendOptions(
        base_url=judges.judge_base_url,
        api_key=judges.judge_api_key,
        concurrency=judges.judge_concurrency,
        timeout_s=judges.judge_timeout,
        device=judges.judge_device,
        dtype=judges.judge_dtype,
        batch_size=judges.judge_batch_size,
        extra=judges.judge_backend_opt,
    )
    check_backend_options(effective_judge_spec(judges.judge), backend, option="--judge-backend-opt")
    generation = _decoding(
        temperature=judges.judge_temperature,
        max_tokens=judges.judge_max_tokens,
        top_p=judges.judge_top_p,
        stop=judges.judge_stop,
        seed=judges.judge_gen_seed,
    )
    return JudgeConfig(
        model=judges.judge, backend=backend, generation=generation, retries=judges.judge_retries
    )


def _run_fields(options: RunOptions) -> dict[str, Any]:
    """The RunConfig fields besides tasks, model, output, backend and judge."""
    what, how, write = options.what, options.how, options.write
    return {
        "limit": what.limit,
        "sample_ids": what.sample_ids,
        "shard": what.shard,
        "seed": what.seed,
        "generation": _decoding(
            temperature=what.temperature,
            max_tokens=what.max_tokens,
            top_p=what.top_p,
            stop=what.stop,
            seed=what.gen_seed,
        ),
        "strict_metrics": what.strict_metrics,
        "blind": what.blind,
        "repeats": what.repeats,
        "reasoning_effort": what.reasoning_effort,
        "reasoning_budget": what.reasoning_budget,
        "use_cache": how.cache,
        "cache_path": how.cache_path,
        "judge_cache_path": how.judge_cache_path,
        "retry": RetryPolicy(max_attempts=how.max_attempts),
        "retry_errors": how.retry_errors,
        "breaker_threshold": how.breaker_threshold,
        "cost_limit": how.cost_limit,
        "prices": how.prices,
        "batch": how.batch_api,
        "batch_api_group_size": how.batch_api_group_size,
        "batch_poll_s": how.batch_api_poll,
        "batch_pending": how.batch_api_pending,
        "max_error_rate": write.max_error_rate,
        "quiet": write.quiet,
        "dry_run": write.dry_run,
        "log_to": write.log_to,
    }


def run_config(
    options: RunOptions,
    *,
    tasks: tuple[str, ...],
    model: str,
    output: Path,
    backend: BackendOptions | None = None,
    judge: JudgeConfig | None = None,
) -> RunConfig:
    """The run's configuration (``tasks`` as recorded: see :func:`joined_tasks`). ``backend`` / ``judge``:
    ready-made ones instead of those the options describe."""
    return RunConfig(
        tasks=tasks,
        model=model,
        output=output,
        backend=backend if backend is not None else backend_options(options),
        judge=judge if judge is not None else run_judge(options),
        **_run_fields(options),
    )


def joined_tasks(tasks: Sequence[str] | str) -> tuple[str]:
    """``tasks`` as a run records them: comma-joined, one entry, whichever way they were given, so a run
    started from the CLI resumes from the API and the other way round."""
    return (tasks if isinstance(tasks, str) else ",".join(tasks),)


def executor_options(options: RunOptions) -> ExecutorOptions:
    """Where the run's samples run."""
    how, judges = options.how, options.judges
    return ExecutorOptions(
        kind=how.executor,
        ray_address=how.ray_address,
        runtime_env=how.ray_runtime_env,
        workers=how.workers,
        gpus_per_replica=how.gpus_per_replica,
        cpus_per_worker=how.cpus_per_worker,
        shard_size=how.shard_size,
        max_shard_attempts=how.max_shard_attempts,
        judge_replicas=judges.judge_replicas,
        judge_gpus_per_replica=judges.judge_gpus_per_replica,
        local_cpus=how.local_cpus,
        driver_seat=how.driver_seat,
    )


def _ready_judge(keywords: dict[str, Any], *, caller: str) -> JudgeConfig | None:
    """``judge=`` given as a ``JudgeConfig`` or a mapping of its fields (taken out of ``keywords``)."""
    value = keywords.get("judge")
    if value is None or isinstance(value, str):
        return None
    del keywords["judge"]  # the options' judge stays None
    others = sorted(k for k in keywords if k.startswith("judge_") and k in JudgeOptions.model_fields)
    others = [k for k in others if k not in ("judge_replicas", "judge_gpus_per_replica")]
    if others:
        raise TypeError(f"{caller}(): judge= is a JudgeConfig; give its options there, not as {others}")
    return value if isinstance(value, JudgeConfig) else JudgeConfig.model_validate(value)


def sweep_configs(options: RunOptions, spec: SweepSpec, *, output: Path) -> list[tuple[str, RunConfig]]:
    """A run configuration per model of a sweep, each in its own directory under ``output``: a model's
    ``base_url`` and ``backend_opt`` from the sweep file win over the options'."""
    from omnieval.executors.sweep import run_dir_name

    shared = backend_options(options)
    judge = run_judge(options)  # one judge for every model (and, on Ray, one pool of its replicas)
    configs = []
    for m in spec.models:
        backend = shared.model_copy(
            update={"base_url": m.base_url or shared.base_url, "extra": {**shared.extra, **m.backend_opt}}
        )
        name = run_dir_name(m)
        configs.append(
            (
                name,
                run_config(
                    options,
                    tasks=spec.tasks,
                    model=m.model,
                    output=output / name,
                    backend=backend,
                    judge=judge,
                ),
            )
        )
    return configs
