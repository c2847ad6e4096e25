"""``--judge SPEC`` and its ``--judge-*`` options (the model options, prefixed) → ``JudgeConfig``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from omnieval.cli._common import generation_overrides, parse_kv

__all__ = ["JudgeOpts", "judge_config", "judge_from_options", "with_judge_options"]

Opt = typer.Option
_P = "Judge"


class JudgeOpts:
    """Typer annotations shared by ``run`` and ``rejudge``."""

    judge = Annotated[
        str | None,
        Opt(
            "--judge",
            help=(
                "Judge model PROVIDER/NAME (openai/..., hf/PATH, vllm/..., pooling/..., replay/JUDGE.jsonl)."
            ),
        ),
    ]
    base_url = Annotated[str | None, Opt("--judge-base-url", help=f"{_P}: base URL of its server.")]
    api_key = Annotated[str | None, Opt("--judge-api-key", help=f"{_P}: API key.")]
    concurrency = Annotated[int, Opt("--judge-concurrency", help=f"{_P}: requests in flight (its own pool).")]
    timeout = Annotated[float, Opt("--judge-timeout", help=f"{_P}: per-request timeout in seconds.")]
    max_tokens = Annotated[
        int | None, Opt("--judge-max-tokens", help=f"{_P}: max new tokens (generative judges).")
    ]
    temperature = Annotated[float | None, Opt("--judge-temperature", help=f"{_P}: sampling temperature.")]
    top_p = Annotated[float | None, Opt("--judge-top-p", help=f"{_P}: nucleus sampling top-p.")]
    stop = Annotated[list[str] | None, Opt("--judge-stop", help=f"{_P}: stop sequence (repeatable).")]
    gen_seed = Annotated[
        int | None, Opt("--judge-gen-seed", help=f"{_P}: sampling seed sent to its backend.")
    ]
    device = Annotated[str | None, Opt("--judge-device", help=f"{_P}: device for local judges.")]
    dtype = Annotated[str | None, Opt("--judge-dtype", help=f"{_P}: dtype for local judges.")]
    batch_size = Annotated[int, Opt("--judge-batch-size", help=f"{_P}: batch size for local judges.")]
    retries = Annotated[
        int | None, Opt("--judge-retries", help=f"{_P}: retries of an unparseable/out-of-range verdict.")
    ]
    backend_opt = Annotated[
        list[str] | None, Opt("--judge-backend-opt", help=f"{_P}: backend-specific KEY=VALUE (repeatable).")
    ]


def judge_config(
    judge: str | None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    concurrency: int = 32,
    timeout: float = 120.0,
    max_tokens: int | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    stop: list[str] | None = None,
    gen_seed: int | None = None,
    device: str | None = None,
    dtype: str | None = None,
    batch_size: int = 8,
    retries: int | None = None,
    backend_opt: list[str] | None = None,
) -> Any:
    """The run's ``JudgeConfig``, or ``None`` without ``--judge``."""
    if judge is None:
        return None
    from omnieval.backends import BackendOptions, check_backend_options
    from omnieval.judges.backends import effective_judge_spec
    from omnieval.runner import JudgeConfig

    generation = generation_overrides(
        temperature=temperature, max_tokens=max_tokens, top_p=top_p, stop=stop, seed=gen_seed
    )
    backend = BackendOptions(
        base_url=base_url,
        api_key=api_key,
        concurrency=concurrency,
        timeout_s=timeout,
        device=device,
        dtype=dtype,
        batch_size=batch_size,
        extra=parse_kv(backend_opt, option="--judge-backend-opt"),
    )
    check_backend_options(
        effective_judge_spec(judge), backend, option="--judge-backend-opt"
    )  # before any work
    return JudgeConfig(model=judge, backend=backend, generation=generation, retries=retries)


_OPTIONS: tuple[tuple[str, Any, Any], ...] = (
    ("judge_base_url", JudgeOpts.base_url, None),
    ("judge_api_key", JudgeOpts.api_key, None),
    ("judge_concurrency", JudgeOpts.concurrency, 32),
    ("judge_timeout", JudgeOpts.timeout, 120.0),
    ("judge_max_tokens", JudgeOpts.max_tokens, None),
    ("judge_temperature", JudgeOpts.temperature, None),
    ("judge_top_p", JudgeOpts.top_p, None),
    ("judge_stop", JudgeOpts.stop, None),
    ("judge_gen_seed", JudgeOpts.gen_seed, None),
    ("judge_device", JudgeOpts.device, None),
    ("judge_dtype", JudgeOpts.dtype, None),
    ("judge_batch_size", JudgeOpts.batch_size, 8),
    ("judge_retries", JudgeOpts.retries, None),
    ("judge_backend_opt", JudgeOpts.backend_opt, None),
)
F = TypeVar("F", bound=Callable[..., Any])


def with_judge_options(fn: F) -> F:
    """Give a command taking ``**judge_options`` the ``--judge-*`` options (one list for run and rejudge)."""
    sig = inspect.signature(fn, eval_str=True)
    params = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    extra = [
        inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d, annotation=a) for n, a, d in _OPTIONS
    ]
    fn.__signature__ = sig.replace(parameters=[*params, *extra])  # type: ignore[attr-defined]
    return fn


def judge_from_options(judge: str | None, options: dict[str, Any]) -> Any:
    """``judge_config`` from the collected ``judge_*`` keyword options."""
    return judge_config(judge, **{k.removeprefix("judge_"): v for k, v in options.items()})
