"""``omnieval mera ...``: miniature datasets, prompt review, task list."""

from __future__ import annotations

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


cli_apps.add("mera", app)
