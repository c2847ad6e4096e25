"""``omnieval rejudge`` and the ``omnieval judge`` group (``judge train``; audits add their commands here)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from omnieval.cli._common import friendly_errors
from omnieval.cli.judge_opts import JudgeOpts, judge_config

__all__ = ["judge_app", "rejudge_command"]

judge_app = typer.Typer(name="judge", help="Judge models: train an encoder judge, audit judges.", no_args_is_help=True)
Opt = typer.Option
Arg = typer.Argument


def rejudge_command(
    run_dir: Annotated[Path, Arg(help="A run directory (samples.jsonl, manifest.json).")],
    judge: Annotated[str, Opt("--judge", help="Judge model PROVIDER/NAME.")],
    judge_base_url: JudgeOpts.base_url = None,
    judge_api_key: JudgeOpts.api_key = None,
    judge_concurrency: JudgeOpts.concurrency = 32,
    judge_timeout: JudgeOpts.timeout = 120.0,
    judge_max_tokens: JudgeOpts.max_tokens = None,
    judge_temperature: JudgeOpts.temperature = None,
    judge_device: JudgeOpts.device = None,
    judge_dtype: JudgeOpts.dtype = None,
    judge_batch_size: JudgeOpts.batch_size = 8,
    judge_retries: JudgeOpts.retries = None,
    judge_backend_opt: JudgeOpts.backend_opt = None,
) -> None:
    """Re-judge stored responses with another judge (no model call); only judge-derived values change."""
    from rich.console import Console

    from omnieval.api import rejudge
    from omnieval.reports import results_table

    with friendly_errors():
        config = judge_config(judge, base_url=judge_base_url, api_key=judge_api_key, concurrency=judge_concurrency,
                              timeout=judge_timeout, max_tokens=judge_max_tokens, temperature=judge_temperature,
                              device=judge_device, dtype=judge_dtype, batch_size=judge_batch_size,
                              retries=judge_retries, backend_opt=judge_backend_opt)  # fmt: skip
        results = rejudge(run_dir, config)
    Console(width=120).print(results_table(results))
