"""The typer application: one command per verb, suites' sub-command groups mounted at start."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.cli import judge_audit as _judge_audit  # noqa: F401  (adds `judge audit` to the judge group)
from omnieval.cli import report_cmds
from omnieval.cli._common import check_run_dirs, fail, friendly_errors, parse_kv, print_json
from omnieval.cli.export_cmd import export_app, push_command
from omnieval.cli.generate_cmd import generate_command
from omnieval.cli.import_cmd import import_app
from omnieval.cli.judge_agreement import judge_agreement_command
from omnieval.cli.judge_cmd import judge_app, rejudge_command
from omnieval.cli.platform_cmd import platform_app, serve_command
from omnieval.cli.protect_cmd import protect_app
from omnieval.cli.run_cmd import run_command
from omnieval.cli.sweep_cmd import sweep_command

__all__ = ["app", "main"]

_SETTINGS: dict[str, Any] = {
    "name": "omnieval",
    "help": "Evaluate text, image, audio and video language models. Russian-first, multilingual by design.",
    "no_args_is_help": True,
    "pretty_exceptions_enable": False,
    "add_completion": False,
}
app = typer.Typer(**_SETTINGS)
app.command("run")(run_command)
app.command("judge-agreement")(judge_agreement_command)
app.command("rejudge")(rejudge_command)
app.add_typer(judge_app, name="judge")
app.command("generate")(generate_command)
app.command("report")(report_cmds.report_command)
app.command("compare")(report_cmds.compare_command)
app.add_typer(report_cmds.analyze_app, name="analyze")
app.add_typer(protect_app, name="protect")
app.command("serve")(serve_command)
app.add_typer(platform_app, name="platform")
app.command("sweep")(sweep_command)
app.add_typer(export_app, name="export")
app.command("push")(push_command)
app.add_typer(import_app, name="import")
Opt = typer.Option
Arg = typer.Argument


@app.command("score")
def score_command(run_dir: Annotated[Path, Arg(help="A finished (or partial) run directory.")]) -> None:
    """Re-parse and re-score a run from its stored responses (no model calls)."""
    from omnieval import api
    from omnieval.reports.html import results_table

    check_run_dirs([run_dir], needs=("manifest.json", "samples.jsonl"))
    with friendly_errors():
        results = api.score(run_dir)
    from rich.console import Console

    Console(width=120).print(results_table(results.results))


@app.command("merge")
def merge_command(
    run_dirs: Annotated[list[Path], Arg(help="The shards' run folders (omnieval run --shard I/N).")],
    output: Annotated[Path, Opt("--output", "-o", help="The merged run folder.")],
    allow_partial: Annotated[
        bool,
        Opt("--allow-partial", help="Merge what exists; missing samples stay unfinished (resumable)."),
    ] = False,
) -> None:
    """Join the folders of shards (--shard I/N) into one run: records, results and report of a single run."""
    from omnieval import api
    from omnieval.reports.html import results_table

    check_run_dirs(run_dirs, needs=("manifest.json",))
    with friendly_errors():
        results = api.merge(*run_dirs, output=output, allow_partial=allow_partial)
    from rich.console import Console

    Console(width=120).print(results_table(results.results))


@app.command("schema")
def schema_command(
    kind: Annotated[str, Arg(help="results, record (a samples.jsonl line), manifest or leaderboard.")],
) -> None:
    """Print the JSON Schema of one of a run's files (versioned by its schema_version)."""
    from omnieval.types.files import json_schema

    with friendly_errors():
        print_json(json_schema(kind))


@app.command("tasks")
def tasks_command(json_out: Annotated[bool, Opt("--json", help="Machine-readable output.")] = False) -> None:
    """List registered tasks: modality, size, metrics, version."""
    from omnieval.cli.listing import list_tasks

    with friendly_errors():
        list_tasks(json_out=json_out)


@app.command("validate")
def validate_command(
    paths: Annotated[list[str], Arg(help="Task YAML files, task names or FORMAT:PATH.")],
) -> None:
    """Validate task definitions: schema, plugin names and options, and every sample of the data."""
    from omnieval.cli.listing import validate_tasks

    with friendly_errors():
        validate_tasks(paths)


@app.command("diff")
def diff_command(
    run_a: Annotated[Path, Arg()],
    run_b: Annotated[Path, Arg()],
    json_out: Annotated[bool, Opt("--json")] = False,
) -> None:
    """Explain why two runs differ: configuration and versions first, then per-sample flips."""
    from omnieval.cli.listing import show_diff

    check_run_dirs([run_a, run_b], needs=("manifest.json", "samples.jsonl"))
    with friendly_errors():
        show_diff(run_a, run_b, json_out=json_out)


@app.command("leaderboard")
def leaderboard_command(
    run_dirs: Annotated[list[Path], Arg(help="Run directories (each with results.json).")],
    scheme: Annotated[str, Opt(help="Leaderboard scheme (mera, megabench, ...).")] = "mera",
    weighting: Annotated[
        str | None, Opt(help="Scheme-specific weighting (mera: tasks | modalities).")
    ] = None,
    option: Annotated[list[str] | None, Opt(help="Scheme option KEY=VALUE (repeatable).")] = None,
    json_out: Annotated[bool, Opt("--json", help="Print the board as JSON.")] = False,
) -> None:
    """Build a leaderboard from several runs' results."""
    from omnieval.aggregate.schemes import build_board, labelled
    from omnieval.types.files import ResultsFile, load_file

    with friendly_errors():
        results = []
        for run_dir in run_dirs:
            path = run_dir / "results.json" if run_dir.is_dir() else run_dir
            if not path.exists():
                fail(f"{path} not found: is {run_dir} a finished run directory?")
            typed: ResultsFile = load_file(path, ResultsFile)
            results.append(labelled(typed.model_copy(update={"run_dir": str(run_dir)})))
        options = parse_kv(option, option="--option")
        if weighting is not None:
            options["weighting"] = weighting
        board = build_board(scheme, results, options)
    if json_out:
        print_json(board)
    else:
        from omnieval.cli.listing import print_board

        print_board(board)


@app.command("pack")
def pack_command(
    run_dirs: Annotated[list[Path], Arg(help="Run directories to pack.")],
    fmt: Annotated[str, Opt("--format", help="Submission format (mera, ...).")] = "mera",
    out: Annotated[Path, Opt("--output", "-o", help="Archive to write.")] = Path("submission.zip"),
    repeat: Annotated[
        int | None,
        Opt(
            min=0,
            help="For a run with --repeats: the repeat whose answers are packed (one per sample; 0 is the "
            "answer a run without repeats gives). Required for such a run.",
        ),
    ] = None,
) -> None:
    """Pack runs into a leaderboard submission archive."""
    from omnieval.submission.base import packers

    check_run_dirs(run_dirs)
    options = {} if repeat is None else {"repeat": repeat}
    with friendly_errors():
        path = packers.get(fmt)(list(run_dirs), out, **options)
    print(f"wrote {path}")


@app.command("validate-submission")
def validate_submission_command(
    archive: Annotated[Path, Arg()],
    fmt: Annotated[str, Opt("--format", help="Submission format.")] = "mera",
    data: Annotated[str | None, Opt(help="Dataset root to check ids against (mera: the mera: ROOT).")] = None,
    option: Annotated[list[str] | None, Opt(help="Validator option KEY=VALUE (repeatable).")] = None,
) -> None:
    """Check a submission archive: missing tasks, unknown ids, duplicates, wrong types (JSON report)."""
    from omnieval.submission.base import validators

    options = parse_kv(option, option="--option")
    if data is not None:
        options["data"] = data
    with friendly_errors():
        report = validators.get(fmt)(archive, **options)
    print_json(report)
    if not report.get("ok", False):
        raise typer.Exit(1)


def _mount_suites() -> None:
    from omnieval.registry import cli_apps

    for name, sub in cli_apps.items():
        app.add_typer(sub, name=name)


def _list_suites() -> None:
    """A placeholder group per ``omnieval.cli`` entry point: its name and how to see its commands."""
    from omnieval.registry import cli_apps

    for name in cli_apps.declared():
        hint = f"Commands of the {name} suite: omnieval {name} --help"
        app.add_typer(typer.Typer(help=hint), name=name)


def _only(name: str) -> typer.Typer | None:
    """The application with only the command or group ``name`` (None: no such built-in one). Typer
    builds every command's parameters from its signature before dispatching to one (≈ 40 ms for the ~40
    commands); a command's own usage, help and errors read the same ("omnieval NAME ...")."""
    one = typer.Typer(**_SETTINGS)
    one.registered_commands = [c for c in app.registered_commands if c.name == name]
    one.registered_groups = [g for g in app.registered_groups if g.name == name]
    if not one.registered_commands and not one.registered_groups:
        return None
    one.callback()(_group)  # a group even with one command, so NAME stays a sub-command
    return one


def _group() -> None:
    """Evaluate text, image, audio and video language models."""


def main() -> None:
    """Console-script entry point: the one place that tunes the process (:mod:`omnieval.cli.startup`)."""
    import sys

    from omnieval.cli import startup

    command = sys.argv[1] if len(sys.argv) > 1 else "--help"
    startup.start(command)
    selected = app
    if command in ("--help", "-h"):
        _list_suites()  # the top-level help names the suites' groups without importing any suite
    elif (one := _only(command)) is not None:
        selected = one
    else:  # suites load only when they may be needed
        _mount_suites()
    try:
        selected()
    finally:
        startup.finish()
