"""``omnieval mera ...``: miniature datasets, prompt review, task list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from omnieval.registry import cli_apps

__all__ = ["app"]

app = typer.Typer(help="MERA Multi: miniature datasets, block prompts, task catalogue.", no_args_is_help=True)


@app.command("make-mini")
def make_mini_cmd(
    root: Annotated[Path, typer.Argument(help="Folder to write one dataset folder per task into.")],
    n: Annotated[int, typer.Option(help="Test samples per task (groups/dialogues round it).")] = 6,
    with_answers: Annotated[bool, typer.Option(help="Keep private answers in the test split too.")] = False,
) -> None:
    """Write miniature datasets of all 18 tasks in the published schema."""
    from omnieval.benchmarks.mera.mini import make_mini

    make_mini(root, n=n, with_answers=with_answers)
    typer.echo(f"wrote 18 miniature MERA datasets under {root} (hidden answers in {root / '.answers'})")


@app.command("prompts")
def prompts_cmd(
    dataset_dir: Annotated[Path, typer.Argument(help="A dataset folder (prompt_config.yaml optional).")],
    lang: Annotated[str, typer.Option(help="ru or en.")] = "ru",
) -> None:
    """Render the dataset's ten block prompts for review."""
    from omnieval.benchmarks.mera.prompts import load_config, render_prompt

    if lang not in ("ru", "en"):
        raise typer.BadParameter("lang must be 'ru' or 'en'")
    task, config = load_config(dataset_dir)
    for name, prompt in config.items():
        typer.echo(f"===== {name} =====")
        typer.echo(render_prompt(task, prompt, lang=lang))  # type: ignore[arg-type]


@app.command("tasks")
def tasks_cmd() -> None:
    """List the 18 tasks with modality, format, licence and human baseline."""
    from omnieval.benchmarks.mera.catalog import catalogue

    for t in catalogue().tasks:
        access = "public" if t.public else "private"
        typer.echo(
            f"{t.name:22} {t.modality:6} {t.answer:4} {access:8} HB={t.human_baseline:.2f}  {t.licence}"
        )


@app.command("subscores")
def subscores_cmd(run_dir: Annotated[Path, typer.Argument(help="A finished run directory.")]) -> None:
    """Domain sub-scores of a run (per task and domain, scored samples only), as JSON."""
    from omnieval.benchmarks.mera.subscores import domain_scores

    typer.echo(json.dumps(domain_scores(run_dir), ensure_ascii=False, indent=2))


@app.command("boards")
def boards_cmd(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (each with results.json).")],
    weighting: Annotated[str, typer.Option(help="tasks (Table 6) or modalities (equation 2).")] = "tasks",
) -> None:
    """Print the image, audio, video and multi boards with their human-baseline rows."""
    from omnieval.benchmarks.mera.scheme import mera_scheme
    from omnieval.types.files import ResultsFile, load_file

    results = [
        load_file(d / "results.json", ResultsFile).model_copy(update={"run_dir": str(d)}) for d in run_dirs
    ]
    boards = mera_scheme(results, weighting=weighting)["boards"]
    for name in ("image", "audio", "video"):
        typer.echo(f"== {name} board ==")
        for row in boards[name]["rows"]:
            typer.echo(
                f"  {row['model']:40} {row['score']:.3f}  (A {row['attempted']:.3f}, C {row['coverage']:.3f})"
            )
        typer.echo(f"  {'Human Baseline':40} {boards[name]['human_baseline']:.3f}")
    typer.echo(f"== multi board (weighting={weighting}) ==")
    for row in [*boards["multi"]["rows"], boards["multi"]["human_baseline"]]:
        typer.echo(
            f"  {row['model']:40} T {row['total']:.3f}  A {row['attempted']:.3f}  C {row['coverage']:.3f}  "
            f"I {row['image']:.3f}  Au {row['audio']:.3f}  V {row['video']:.3f}"
        )


@app.command("check-submission")
def check_submission_cmd(
    archive: Annotated[Path, typer.Argument(help="submission.zip")],
    data: Annotated[Path | None, typer.Option(help="MERA ROOT: also check unknown and missing ids.")] = None,
    require_all: Annotated[bool, typer.Option(help="Missing tasks are errors, not warnings.")] = False,
) -> None:
    """Validate a MERA submission, optionally against the test ids of local datasets."""
    from omnieval.benchmarks.mera.submission import validate_mera

    report = validate_mera(archive, data=str(data) if data else None, require_all=require_all)
    typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    if not report["ok"]:
        raise typer.Exit(1)


cli_apps.add("mera", app)
