"""``omnieval judge audit RUN_DIR...``: flip rate, position swap, length bias, judge agreement and cost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from omnieval.cli._common import check_run_dirs, friendly_errors
from omnieval.cli.judge_cmd import judge_app
from omnieval.cli.judge_opts import JudgeOpts, judge_config

__all__ = ["audit_command"]


@judge_app.command("audit")
def audit_command(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(help="Judged run directories (same responses judged by one or more judges)."),
    ],
    repeats: Annotated[
        int, typer.Option(help="Also re-judge the first run N times without the cache (flip rate).")
    ] = 0,
    judge: Annotated[
        str | None, typer.Option("--judge", help="Judge for --repeats (default: the run's own judge).")
    ] = None,
    judge_base_url: JudgeOpts.base_url = None,
    judge_api_key: JudgeOpts.api_key = None,
    judge_temperature: JudgeOpts.temperature = None,
    judge_backend_opt: JudgeOpts.backend_opt = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the audit as JSON instead of Markdown.")
    ] = False,
    save: Annotated[
        bool,
        typer.Option(
            help="Write judge_audit.json and judge_audit.md into the first run directory "
            "and re-render its report.html (its Judge audit section)."
        ),
    ] = True,
) -> None:
    """Audit judges: repeated-judging flip rate, position swap, length bias, Cohen's kappa, cost."""
    from omnieval.analysis.judge_repeat import repeat_judging
    from omnieval.analysis.judge_runs import audit_markdown, audit_runs
    from omnieval.store import iter_records

    check_run_dirs(run_dirs)
    with friendly_errors():
        runs = {}
        for run_dir in run_dirs:
            runs[str(run_dir)] = list(iter_records(run_dir / "samples.jsonl"))
        if repeats:
            config = (
                judge_config(
                    judge,
                    base_url=judge_base_url,
                    api_key=judge_api_key,
                    temperature=judge_temperature,
                    backend_opt=judge_backend_opt,
                )
                if judge
                else None
            )
            for i, records in enumerate(repeat_judging(run_dirs[0], config, repeats=repeats), start=1):
                runs[f"{run_dirs[0]}#repeat{i}"] = records
        audit = audit_runs(runs)
    text = audit_markdown(audit)
    if save:
        (run_dirs[0] / "judge_audit.json").write_text(
            json.dumps(audit, ensure_ascii=False, indent=2, default=str), encoding="utf-8"
        )
        (run_dirs[0] / "judge_audit.md").write_text(text, encoding="utf-8")
        _rerender_report(run_dirs[0])
    typer.echo(json.dumps(audit, ensure_ascii=False, indent=2, default=str) if json_out else text)


def _rerender_report(run_dir: Path) -> None:
    """Re-render the run's report.html, whose "Judge audit" section shows the saved flips and agreement."""
    from omnieval.cli.report_cmds import _tasks_of
    from omnieval.reports.html import write_report

    with friendly_errors():
        tasks, _ = _tasks_of(run_dir)
        write_report(run_dir, tasks=tasks)
