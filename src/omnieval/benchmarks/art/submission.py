"""ART as a leaderboard benchmark: a submission format (pack, validate, read) and a scheme.

A generated ART set has no fixed catalogue, so the format is the plain one every run can give: a zip with
one ``<task>.jsonl`` per task (``art.AA.jsonl`` ...), each line ``{"sample_id", "response"}`` — the model's
raw answers, scored on the server against the hidden Yes/No answers. The board's Total is the mean
absolute accuracy over the 9 tasks (a task not submitted counts 0), Attempted the mean over submitted
tasks, Coverage the share of tasks submitted, as MERA defines them.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from omnieval.aggregate.schemes import register_scheme, typed_results
from omnieval.benchmarks.art.spec import TASKS
from omnieval.errors import SubmissionError
from omnieval.submission.base import register_packer, register_reader, register_validator
from omnieval.submission.runs import latest_records
from omnieval.types.files import ResultsFile

__all__ = ["art_scheme", "pack_art", "read_art", "validate_art"]

_PREFIX = "art."
HUMAN = {"total": 0.929, "attempted": 0.929, "coverage": 1.0, "audio": 0.929}
"""The paper's human accuracy on ART-H (Table 6); per-task human figures are not published."""


def _task_of(name: str) -> str | None:
    """``art.AA.jsonl`` or ``art.AA.descriptive.jsonl`` -> the task name, when it is one of ART's."""
    if "/" in name or not name.endswith(".jsonl") or not name.startswith(_PREFIX):
        return None
    task = name.removesuffix(".jsonl")
    return task if task.split(".")[1] in TASKS else None


@register_packer("art")
def pack_art(run_dirs: list[Path], out: Path, /, *, repeat: int | None = None) -> Path:
    """Zip the ART tasks' answers of finished runs (one ``<task>.jsonl`` each, one line per sample: the
    latest record of a resumed run; of a run with repeats, repeat ``repeat``, see :func:`latest_records`)."""
    per_task: dict[str, list[str]] = {}
    for run in map(Path, run_dirs):
        for task, records in latest_records(run, repeat=repeat).items():
            if not _task_of(f"{task}.jsonl"):
                continue
            per_task.setdefault(task, []).extend(
                json.dumps({"sample_id": record.sample_id, "response": record.response}, ensure_ascii=False)
                for record in records.values()
                if record.response is not None
            )
    per_task = {task: lines for task, lines in per_task.items() if lines}
    if not per_task:
        raise SubmissionError(f"no ART task answers in {', '.join(map(str, run_dirs))}")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for task, lines in sorted(per_task.items()):
            zf.writestr(f"{task}.jsonl", "\n".join(lines) + "\n")
    return out


def _read_lines(zf: zipfile.ZipFile, name: str) -> tuple[dict[str, str], list[str]]:
    answers: dict[str, str] = {}
    errors: list[str] = []
    try:
        text = zf.read(name).decode("utf-8")
    except UnicodeDecodeError:
        return answers, ["not UTF-8 text"]
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            sample_id, response = str(item["sample_id"]), item["response"]
        except (json.JSONDecodeError, KeyError, TypeError):
            errors.append(f"line {number}: not a JSON object with sample_id and response")
            continue
        if not isinstance(response, str):
            errors.append(f"line {number}: response must be a string")
        elif sample_id in answers:
            errors.append(f"line {number}: duplicate sample_id {sample_id!r}")
        else:
            answers[sample_id] = response
    return answers, errors


def _open(archive: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise SubmissionError(f"{archive}: not a readable zip ({exc})") from None


@register_validator("art")
def validate_art(archive: Path, /) -> dict[str, Any]:
    """Per-task report: file, answers, errors (bad lines, duplicates); unknown files are errors."""
    errors: list[str] = []
    tasks: dict[str, Any] = {}
    with _open(archive) as zf:
        for name in zf.namelist():
            if name.endswith("/"):
                continue
            task = _task_of(name)
            if task is None:
                errors.append(
                    f"{name}: not an ART task file (expected art.<TASK>.jsonl, TASK in {', '.join(TASKS)})"
                )
                continue
            answers, problems = _read_lines(zf, name)
            tasks[task] = {"file": name, "n": len(answers), "errors": problems}
            errors.extend(f"{name}: {p}" for p in problems)
    return {
        "ok": not errors and bool(tasks),
        "format": "art",
        "tasks": tasks,
        "errors": errors or ([] if tasks else ["no ART task file in the archive"]),
    }


@register_reader("art")
def read_art(archive: Path, /) -> dict[str, dict[str, str]]:
    """Task name -> sample id -> the model's raw answer."""
    with _open(archive) as zf:
        return {task: _read_lines(zf, name)[0] for name in zf.namelist() if (task := _task_of(name))}


@register_scheme("art")
def art_scheme(results: Sequence[Mapping[str, Any] | ResultsFile], /) -> dict[str, Any]:
    """Rows with ``total`` (mean over ART's 9 tasks, missing = 0), ``attempted``, ``coverage`` and per-task
    scores; ART is audio only, so the ``audio`` and ``multi`` boards carry the rows."""
    rows: list[dict[str, Any]] = []
    for document in results:
        result = typed_results(document)
        scores = {
            name.split(".")[1]: float(block.score or 0.0)
            for name, block in result.tasks.items()
            if _task_of(f"{name}.jsonl")
        }
        attempted = sum(scores.values()) / len(scores) if scores else 0.0
        rows.append(
            {
                "model": str(result.model or result.run_dir or "?"),
                "total": sum(scores.values()) / len(TASKS),
                "attempted": attempted,
                "coverage": len(scores) / len(TASKS),
                "audio": attempted,
                **scores,
            }
        )
    rows.sort(key=lambda r: -float(r["total"]))
    board = {"rows": rows, "human_baseline": {"model": "Human Baseline (ART-H, paper Table 6)", **HUMAN}}
    empty: dict[str, Any] = {"rows": [], "human_baseline": None}
    return {
        "scheme": "art",
        "title": "ART (absolute accuracy, Yes/No protocol)",
        "rows": rows,
        "boards": {"image": empty, "audio": board, "video": empty, "multi": board},
    }
