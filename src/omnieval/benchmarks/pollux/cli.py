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
    style: Annotated[
        str | None, Opt(help="Functional style: Literature, Journalism, Science, Law, Conversational.")
    ] = None,
    ethics: Annotated[
        bool, Opt("--ethics", help="The item carries the ethics flag (forces Safety).")
    ] = False,
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
            mean = mean_set_size(
                (i.task_type, i.task_subtype, i.functional_style, i.ethics_flag) for i in loaded
            )
            typer.echo(json.dumps({"n_items": len(loaded), "mean_criteria": mean}))
            return
        if task_type is None:
            raise typer.BadParameter("give --task-type (or --items)")
        variants = match_criteria(task_type=task_type, subtype=subtype, style=style, ethics=ethics)
    except OmnievalError as exc:
        _fail(exc)
        return
    if json_out:
        rows = [
            {
                "id": v.id,
                "name": v.name,
                "group": v.group,
                "scale": [v.min, v.max],
                "higher_is_better": v.higher_is_better,
                "allows_na": v.allows_na,
                "requires_reference": v.requires_reference,
            }
            for v in variants
        ]
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
def composition_cmd(
    items: Annotated[Path, typer.Argument(help="POLLUX items (JSONL, CSV or Parquet).")],
) -> None:
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
    judge: Annotated[
        list[str] | None, Opt(help="NAME=PATH of judge scores or raw outputs (repeatable).")
    ] = None,
    out: Annotated[
        Path | None, Opt(help="Folder for pollux_report.json and the tables (MD/CSV/JSON).")
    ] = None,
    critical_scope: Annotated[str, Opt(help="answer (drop the whole answer) or triple.")] = "answer",
    reference: Annotated[str, Opt(help="mode (generative judges) or mean (regression judges).")] = "mode",
    seed: Annotated[int, Opt()] = 0,
    strict: Annotated[bool, Opt(help="Stop at the first bad annotation row instead of counting it.")] = False,
    check_feedback: Annotated[
        bool, Opt(help="Judge rationales must be Russian, ≥2 words unless perfect.")
    ] = False,
    language_check: Annotated[
        bool,
        Opt(
            "--language-check/--no-language-check",
            help="Judge feedback not in Russian is judge_failed (default; "
            "--check-feedback requires Russian either way).",
        ),
    ] = True,
    family: Annotated[
        list[str] | None,
        Opt(
            help="JUDGE=MODEL,MODEL: the judge's own family among the evaluated "
            "models, for the self-family bias (repeatable)."
        ),
    ] = None,
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
    families = {}
    for spec in family or []:
        name, sep, models = spec.partition("=")
        if not sep:
            _fail(ValueError(f"--family expects JUDGE=MODEL,MODEL, got {spec!r}"))
        families[name] = [m.strip() for m in models.split(",") if m.strip()]
    if critical_scope not in ("answer", "triple") or reference not in ("mode", "mean"):
        _fail(ValueError("--critical-scope is answer|triple and --reference is mode|mean"))
    try:
        result = evaluate(
            items_path=items,
            annotations_path=annotations,
            judge_paths=judges,
            out_dir=out,
            critical_scope=critical_scope,  # type: ignore[arg-type]
            reference=reference,  # type: ignore[arg-type]
            seed=seed,
            strict=strict,
            check_feedback=check_feedback,
            check_language=language_check,
            families=families,
        )
    except OmnievalError as exc:
        _fail(exc)
        return
    summary = {
        "import": result["import"],
        "cleaning": result["cleaning"],
        "n_samples": result["n_samples"],
        "judges": {
            n: {
                "audit": j["audit"],
                "overall": j["report"]["overall"]["all"],
                "self_family": j.get("self_family"),
            }
            for n, j in result["judges"].items()
        },
    }
    typer.echo(json.dumps(summary, ensure_ascii=False, indent=2, default=str))


@app.command("synth-prompts")
def synth_prompts_cmd(
    out: Annotated[Path, typer.Argument(help="JSONL of instruction-generation prompts to write.")],
) -> None:
    """§3.2d instruction-generation prompts, one per task type × subtype × complexity level."""
    from omnieval.benchmarks.pollux.synthetic import generation_prompts

    rows = list(generation_prompts())
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    typer.echo(f"wrote {len(rows)} prompts to {out}")


@app.command("synth-items")
def synth_items_cmd(
    run_dir: Annotated[Path, typer.Argument(help="A pollux_synth: run directory.")],
    out: Annotated[Path, Opt(help="POLLUX items JSONL to write.")],
    max_non_russian: Annotated[
        float, Opt(help="Language filter: drop above this share of non-Russian tokens.")
    ] = 0.05,
) -> None:
    """Extract [PROBLEM] … [END] instructions from a generation run, apply the language filter, write
    items."""
    from omnieval.benchmarks.pollux.synthetic import synthetic_items

    items, counts = synthetic_items(run_dir, max_non_russian=max_non_russian)
    out.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    typer.echo(json.dumps(counts))


@app.command("dedup")
def dedup_cmd(
    synthetic: Annotated[Path, Opt(help="JSONL {id, task_type, text} of generated instructions.")],
    expert: Annotated[Path, Opt(help="JSONL {task_type, text} of expert instructions (thresholds).")],
    embedder: Annotated[
        str, Opt(help="Embedder: hf/PATH, openai/NAME, or a local model folder (read as hf/FOLDER).")
    ],
    max_non_russian: Annotated[
        float, Opt(help="Language filter: drop above this share of non-Russian tokens.")
    ] = 0.05,
) -> None:
    """Language filter, then Algorithm 1 (cosine and chrF within task type, expert thresholds); JSON
    report."""
    import contextlib
    import sys

    from omnieval.backends.embeddings import create_embedder
    from omnieval.benchmarks.pollux.synthetic import non_russian_share, semantic_dedup
    from omnieval.errors import OmnievalError
    from omnieval.sources.readers import read_rows

    spec = f"hf/{embedder}" if Path(embedder).is_dir() else embedder  # a bare folder, as before specs
    try:
        with contextlib.redirect_stdout(
            sys.stderr
        ):  # model-loading chatter must not break the JSON on stdout
            embed = create_embedder(spec).embed
            rows = [r for _, r in read_rows("jsonl", path=synthetic)]
            russian = [r for r in rows if non_russian_share(str(r["text"])) <= max_non_russian]
            experts = [r for _, r in read_rows("jsonl", path=expert)]
            report = semantic_dedup(russian, experts, embed=embed)
    except OmnievalError as exc:
        _fail(exc)
    typer.echo(
        json.dumps(
            {
                "n_input": len(rows),
                "language_filtered": len(rows) - len(russian),
                "counts": dict(report.counts),
                "kept": report.kept,
                "review": report.review,
                "removed": report.removed,
            },
            ensure_ascii=False,
            indent=2,
        )
    )


@app.command("export-training")
def export_training_cmd(
    judge_run: Annotated[Path, typer.Argument(help="A pollux_judge: run of the teacher (template=en).")],
    items: Annotated[Path, Opt(help="The synthetic items the teacher judged.")],
    answers: Annotated[Path, Opt(help="The answers it judged (JSONL or a pollux: run).")],
    out: Annotated[Path, Opt(help="JSONL of training pairs to write.")],
    target: Annotated[
        str, Opt(help="seq2seq ([FEEDBACK]…[RESULT]…[END]) or regression (the score).")
    ] = "seq2seq",
) -> None:
    """Training pairs from teacher verdicts: RU training prompt → verdict text or score."""
    from omnieval.benchmarks.pollux.synthetic import export_training_pairs
    from omnieval.errors import OmnievalError

    if target not in ("seq2seq", "regression"):
        _fail(ValueError("--target is seq2seq or regression"))
    try:
        pairs, counts = export_training_pairs(judge_run, items, answers, target=target)
    except OmnievalError as exc:
        _fail(exc)
        return
    out.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs), encoding="utf-8")
    typer.echo(json.dumps(counts))


cli_apps.add("pollux", app)
