"""``omnieval pollux ...``: criteria sets, taxonomy listing, item checks and judge-versus-expert tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from omnieval.registry import cli_apps

__all__ = ["app"]

app = typer.Typer(help="POLLUX: criteria-based evaluation of generative answers.", no_args_is_help=True)
Opt = typer.Option


def _fail(exc: Exception) -> None:
    typer.echo(f"omnieval: error: {exc}", err=True)
    raise typer.Exit(2)


@app.command("criteria")
def criteria_cmd(
    task_type: Annotated[str | None, Opt("--task-type", help="One of the 35 task types.")] = None,
    subtype: Annotated[str | None, Opt(help="Task subtype (subgroup).")] = None,
    style: Annotated[str | None, Opt(help="Functional style: Literature, Journalism, Science, Law, Conversational.")] = None,
    ethics: Annotated[bool, Opt("--ethics", help="The item carries the ethics flag (forces Safety).")] = False,
    items: Annotated[Path | None, Opt(help="POLLUX items file: print the average set size over it.")] = None,
    json_out: Annotated[bool, Opt("--json")] = False,
) -> None:
    """The ordered criteria set for one item, or the average set size over an items file."""
    from omnieval.benchmarks.pollux.matcher import match_criteria, mean_set_size
    from omnieval.errors import OmnievalError

    try:
        if items is not None:
            from omnieval.benchmarks.pollux.items import load_items

            loaded = load_items(items)
            mean = mean_set_size((i.task_type, i.task_subtype, i.functional_style, i.ethics_flag) for i in loaded)
            typer.echo(json.dumps({"n_items": len(loaded), "mean_criteria": mean}))
            return
        if task_type is None:
            raise typer.BadParameter("give --task-type (or --items)")
        variants = match_criteria(task_type=task_type, subtype=subtype, style=style, ethics=ethics)
    except OmnievalError as exc:
        _fail(exc)
        return
    if json_out:
        rows = [{"id": v.id, "name": v.name, "group": v.group, "scale": [v.min, v.max],
                 "higher_is_better": v.higher_is_better, "allows_na": v.allows_na,
                 "requires_reference": v.requires_reference} for v in variants]  # fmt: skip
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for v in variants:
        polarity = "" if v.higher_is_better else "  (1 = violation)"
        typer.echo(f"{v.group:10} {v.min}-{v.max}  {v.id:32} {v.short}{polarity}")
    typer.echo(f"{len(variants)} criteria")


@app.command("tasks")
def tasks_cmd() -> None:
    """The 35 task types with macrogroup, levels and split."""
    from omnieval.benchmarks.pollux.taxonomy import task_taxonomy

    tax = task_taxonomy()
    for t in tax.task_types:
        split = "zero-shot" if t.zero_shot else "standard"
        typer.echo(f"{tax.macrogroups[t.macrogroup]:34} {t.name:42} {'/'.join(t.levels):22} {split}")



@app.command("composition")
def composition_cmd(items: Annotated[Path, typer.Argument(help="POLLUX items (JSONL, CSV or Parquet).")]) -> None:
    """Counts per task type, complexity and subtype, with deviations from the paper's plan (JSON)."""
    from omnieval.benchmarks.pollux.items import composition, load_items
    from omnieval.errors import OmnievalError

    try:
        typer.echo(json.dumps(composition(load_items(items)), ensure_ascii=False, indent=2))
    except OmnievalError as exc:
        _fail(exc)


@app.command("evaluate")
def evaluate_cmd(
    items: Annotated[Path, Opt(help="POLLUX items file.")],
    annotations: Annotated[Path, Opt(help="Expert point estimates (CSV/JSONL).")],
    judge: Annotated[list[str] | None, Opt(help="NAME=PATH of judge scores or raw outputs (repeatable).")] = None,
    out: Annotated[Path | None, Opt(help="Folder for pollux_report.json and the tables (MD/CSV/JSON).")] = None,
    critical_scope: Annotated[str, Opt(help="answer (drop the whole answer) or triple.")] = "answer",
    reference: Annotated[str, Opt(help="mode (generative judges) or mean (regression judges).")] = "mode",
    seed: Annotated[int, Opt()] = 0,
    strict: Annotated[bool, Opt(help="Stop at the first bad annotation row instead of counting it.")] = False,
) -> None:
    """Clean and aggregate expert annotations; compare judges with the experts; write the tables."""
    from omnieval.benchmarks.pollux.pipeline import evaluate
    from omnieval.errors import OmnievalError

    judges = {}
    for spec in judge or []:
        name, sep, path = spec.partition("=")
        if not sep:
            _fail(ValueError(f"--judge expects NAME=PATH, got {spec!r}"))
        judges[name] = Path(path)
    if critical_scope not in ("answer", "triple") or reference not in ("mode", "mean"):
        _fail(ValueError("--critical-scope is answer|triple and --reference is mode|mean"))
    try:
        result = evaluate(items_path=items, annotations_path=annotations, judge_paths=judges, out_dir=out,
                          critical_scope=critical_scope, reference=reference, seed=seed, strict=strict)  # type: ignore[arg-type]  # fmt: skip
    except OmnievalError as exc:
        _fail(exc)
        return
    summary = {"import": result["import"], "cleaning": result["cleaning"], "n_samples": result["n_samples"],
               "judges": {n: {"audit": j["audit"], "overall": j["report"]["overall"]["all"]}
                          for n, j in result["judges"].items()}}  # fmt: skip
    typer.echo(json.dumps(summary, ensure_ascii=False, indent=2, default=str))


cli_apps.add("pollux", app)
