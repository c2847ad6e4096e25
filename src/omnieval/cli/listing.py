"""Output of the listing / inspection commands: tasks, validate, diff, boards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from omnieval.cli._common import print_json

__all__ = ["list_tasks", "print_board", "show_diff", "validate_tasks"]


def list_tasks(*, json_out: bool) -> None:
    from omnieval.runner import catalog
    from omnieval.sources import load_task_file

    rows: list[dict[str, Any]] = []
    for name, path in sorted(catalog().items()):
        task = load_task_file(path)
        spec = task.spec
        rows.append(
            {
                "name": name,
                "modalities": list(spec.modalities),
                "size": task.size,
                "metrics": [m.key for m in spec.metrics],
                "version": spec.version,
                "hash": task.content_hash,
                "groups": list(dict.fromkeys([*spec.groups, *spec.tags])),
                "path": str(path),
            }
        )
    published = _hub_rows()
    if json_out:
        print_json([*rows, *published])
        return
    table = Table(title="omnieval tasks")
    for col in ("name", "modalities", "size", "metrics", "version", "groups"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["name"],
            ",".join(r["modalities"]),
            str(r["size"] or "?"),
            ",".join(r["metrics"]),
            r["version"],
            ",".join(r["groups"]),
        )
    Console(width=140).print(table)
    _print_hub_table(published)
    print(
        "Also importers: "
        + ", ".join(f"{n}:PATH" for n in _importer_names())
        + " (e.g. the 18 MERA Multi tasks: mera:ROOT)"
    )


def _hub_rows() -> list[dict[str, Any]]:
    """The published benchmarks read from a local copy of their Hub repository (``BENCH:DIR``)."""
    from omnieval.sources.hub import hub_benchmarks

    return [
        {
            "name": f"{name}:DIR",
            "modalities": [bench.modality],
            "size": bench.size,
            "licence": bench.licence,
            "source": f"hf.co/datasets/{bench.dataset} ({bench.split})",
            "scorer": bench.scorer,
            "docs": bench.docs,
        }
        for name, bench in hub_benchmarks.items()
    ]


def _print_hub_table(rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    table = Table(title="published benchmarks (--tasks BENCH:DIR, DIR a local copy of the Hub repository)")
    for col in ("name", "modality", "size", "licence", "source"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["name"], ",".join(r["modalities"]), str(r["size"] or "?"), r["licence"], r["source"])
    Console(width=140).print(table)


def _importer_names() -> list[str]:
    from omnieval.sources import importers

    return importers.names()


def validate_tasks(items: list[str]) -> None:
    """Validate spec and plugins, then stream every sample so data errors surface now; rows without a gold
    answer are counted and named (they would be silently left out of the score); every media file a sample
    references is opened and decoded, and the missing or undecodable ones are named (the command fails)."""
    from omnieval.errors import SourceError
    from omnieval.runner import resolve_tasks

    bad_media = 0
    for task in resolve_tasks(items):
        task.scan_ids()
        n, no_gold = 0, []
        problems: dict[str, tuple[str, str]] = {}  # media path (or label) → (first sample id, why)
        checked: set[str] = set()
        for sample in task.iter_samples():
            n += 1
            if not sample.has_targets:
                no_gold.append(sample.id)
            _check_media(sample, checked, problems)
        status = "error " if problems else "warn  " if no_gold and len(no_gold) < n else "ok  "
        print(f"{status}{task.name}  ({n} samples, version {task.spec.version}, hash {task.content_hash})")
        _print_gold_notes(no_gold, n)
        for sample_id, why in list(problems.values())[:20]:
            print(f"    sample {sample_id!r}: {why}")
        if len(problems) > 20:
            print(f"    and {len(problems) - 20} more media files")
        bad_media += len(problems)
    if bad_media:
        raise SourceError(
            f"{bad_media} media file(s) cannot be opened or decoded (named above): a run would record "
            "their samples as errors"
        )


def _check_media(sample: Any, checked: set[str], problems: dict[str, tuple[str, str]]) -> None:
    from omnieval.media.check import media_problem

    for ref in sample.media:
        label = ref.describe()
        if label in checked:
            continue
        checked.add(label)
        if (why := media_problem(ref)) is not None:
            problems[label] = (sample.id, why)


def _print_gold_notes(no_gold: list[str], n: int) -> None:
    if no_gold and len(no_gold) == n:
        print(
            f"    note: no sample has a gold answer (hidden test set?): all {n} will be predictions "
            "only, not scored"
        )
    elif no_gold:
        named = ", ".join(map(repr, no_gold[:10])) + (
            f" and {len(no_gold) - 10} more" if len(no_gold) > 10 else ""
        )
        print(
            f"    warning: {len(no_gold)} of {n} samples have no gold answer and will not be scored: {named}"
        )


def show_diff(run_a: Path, run_b: Path, *, json_out: bool) -> None:
    from omnieval.reports.diff import diff_runs

    diff = diff_runs(run_a, run_b)
    if json_out:
        print_json(diff)
        return
    console = Console(width=140)
    console.print(
        "[bold]Configuration and version differences[/bold]" if diff["config"] else "Configurations match."
    )
    for key, pair in diff["config"].items():
        console.print(f"  {key}: {str(pair['a'])[:60]!s} → {str(pair['b'])[:60]!s}", markup=False)
    console.print("[bold]Task scores[/bold]")
    for name, pair in diff["tasks"].items():
        console.print(f"  {name}: {_number(pair['a'])} → {_number(pair['b'])}", markup=False)
    console.print(
        f"[bold]{diff['n_flips']} samples changed[/bold] (only in A: {diff['only_in_a']}, only in B: "
        f"{diff['only_in_b']})"
    )
    for flip in diff["flips"]:
        console.print(
            f"  {flip['task']}/{flip['sample_id']}{_repeat_tag(flip)}: "
            f"{flip['a']['state']} {_number(flip['a']['score'])} → {flip['b']['state']} "
            f"{_number(flip['b']['score'])}",
            markup=False,
        )


def _number(value: Any) -> str:
    """A score as the run tables show it (``0.4583``, not ``0.4583333333333333``); anything else as is."""
    return f"{value:.4f}" if isinstance(value, float) else "–" if value is None else str(value)


def _repeat_tag(flip: dict[str, Any]) -> str:
    return f" (repeat {flip['repeat']})" if "repeat" in flip else ""


def _rows_table(title: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=title)
    columns = list(rows[0].keys())
    for col in columns:
        table.add_column(str(col))
    for row in rows:
        table.add_row(
            *(f"{v:.3f}" if isinstance(v, float) else str(v) for v in (row.get(c) for c in columns))
        )
    return table


def print_board(board: dict[str, Any]) -> None:
    """The main rows, then any sub-boards a scheme returns (``{"boards": {name: {"rows": [...]}}}``)."""
    console = Console(width=160)
    rows = board.get("rows", [])
    if not rows:
        print("(empty board)")
        return
    console.print(_rows_table(str(board.get("title", "leaderboard")), rows))
    for name, sub in (board.get("boards") or {}).items():
        if isinstance(sub, dict) and sub.get("rows"):
            extra = {k: v for k, v in sub.items() if k != "rows" and not isinstance(v, dict | list)}
            note = " · ".join(f"{k.replace('_', ' ')} {v}" for k, v in extra.items())
            console.print(_rows_table(f"{name} board" + (f" ({note})" if note else ""), sub["rows"]))
