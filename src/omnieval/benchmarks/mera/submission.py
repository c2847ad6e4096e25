"""MERA submission zip: ``<TaskName>.json`` per task plus ``logs_public.zip``, and its validator.

Layout (MERA's ``log_to_submission.py``): each task file is
``{"data": {"test": [{"outputs": <answer>, "meta": {"id": <int>}}, ...]}}``, named as in the
catalogue (``ruHHH_Image.json``, ``ruSLUn.json``, ``ruTiE_Audio.json`` ...).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from omnieval.benchmarks.mera.catalog import MeraTask, catalogue, find_task
from omnieval.errors import SubmissionError
from omnieval.submission.base import register_packer, register_reader, register_validator
from omnieval.submission.runs import LOG_FILES, latest_records, zip_bytes
from omnieval.types import SampleResult

__all__ = ["LOGS_NAME", "pack_mera", "read_mera", "validate_mera"]

LOGS_NAME = "logs_public.zip"


def _task_file(task: MeraTask, records: dict[str, SampleResult], where: Path) -> bytes:
    items: list[dict[str, Any]] = []
    for sample_id, record in records.items():
        try:
            ident = int(sample_id)
        except ValueError:
            raise SubmissionError(
                f"{where}: task {task.name!r} sample {sample_id!r}: meta.id must be an integer"
            ) from None
        response = record.response
        items.append({"outputs": "" if response is None else str(response).strip(), "meta": {"id": ident}})
    items.sort(key=lambda item: item["meta"]["id"])
    return json.dumps({"data": {"test": items}}, ensure_ascii=False, indent=1).encode()


def _logs(run_dirs: list[Path]) -> bytes:
    files: list[tuple[str, bytes]] = []
    for i, run_dir in enumerate(run_dirs):
        prefix = f"{i:02d}_{run_dir.resolve().name}"
        files.extend(
            (f"{prefix}/{name}", (run_dir / name).read_bytes())
            for name in LOG_FILES
            if (run_dir / name).is_file()
        )
    return zip_bytes(files)


@register_packer("mera")
def pack_mera(run_dirs: list[Path], out: Path, /, *, repeat: int | None = None) -> Path:
    """Pack the MERA tasks of one or more runs into ``out`` (a zip); other tasks are left out. A run with
    repeats packs the answers of repeat ``repeat`` (required for it: see :func:`latest_records`)."""
    found: dict[str, tuple[MeraTask, dict[str, SampleResult], Path]] = {}
    for run_dir in map(Path, run_dirs):
        for name, records in latest_records(run_dir, repeat=repeat).items():
            task = find_task(name)
            if task is None:
                continue
            if task.name in found:
                raise SubmissionError(
                    f"task {task.name!r} is in two runs: {found[task.name][2]} and {run_dir}"
                )
            found[task.name] = (task, records, run_dir)
    if not found:
        raise SubmissionError(f"no MERA Multi task in {', '.join(map(str, run_dirs))}")
    files = [
        (f"{task.submission}.json", _task_file(task, recs, where)) for task, recs, where in found.values()
    ]
    files.append((LOGS_NAME, _logs([Path(d) for d in run_dirs])))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(zip_bytes(sorted(files)))
    return out


class _NotShaped(ValueError):
    """The task file has no ``data.test`` array."""


class _NotJson(ValueError):
    """The task file is not valid JSON (or not UTF-8)."""


class _TooLarge(ValueError):
    """An item of ``data.test`` is larger or deeper than an answer can be (checked while streaming)."""


MAX_ITEM_CHARS = 4 * 1024 * 1024
"""Characters of strings and keys in one ``data.test`` item (its ``outputs`` and ``meta`` together)."""
MAX_ITEM_DEPTH = 16
"""Nesting of one item: a JSON answer is a few levels deep; 2,000 levels broke scoring (RecursionError)."""
MAX_ERRORS = 50
"""Errors listed per task file and per report; the rest are counted (``n_errors``): a zip of a million
bad items gets a short answer, not a 400 MB one."""


MAX_MESSAGE = 300
"""Characters of one listed error (a message quoting a 4 MB ``meta.id`` is cut)."""


class _Errors:
    """The first ``MAX_ERRORS`` messages and the count of all."""

    def __init__(self) -> None:
        self.first: list[str] = []
        self.count = 0

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.first) < MAX_ERRORS:
            self.first.append(message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "...")

    def report(self) -> dict[str, Any]:
        return {"errors": self.first, "n_errors": self.count}


def _bounded(events: Iterable[tuple[str, str, Any]]) -> Iterator[tuple[str, str, Any]]:
    """Parser events, refusing an item over ``MAX_ITEM_CHARS`` or ``MAX_ITEM_DEPTH`` before it is built."""
    index, chars, depth = -1, 0, 0
    for prefix, event, value in events:
        if prefix.startswith("data.test.item"):
            if prefix == "data.test.item" and event in ("start_map", "start_array") and depth == 0:
                index, chars = index + 1, 0
            depth += event in ("start_map", "start_array")
            depth -= event in ("end_map", "end_array")
            chars += len(value) if isinstance(value, str) else 1
            if depth > MAX_ITEM_DEPTH:
                raise _TooLarge(f"data.test[{index}]: nested deeper than {MAX_ITEM_DEPTH} levels")
            if chars > MAX_ITEM_CHARS:
                raise _TooLarge(f"data.test[{index}]: larger than {MAX_ITEM_CHARS} characters")
        yield prefix, event, value


def _test_items(fh: IO[bytes]) -> Iterator[Any]:
    """The items of the file's ``data.test`` array one at a time, parsed as a stream (``ijson``): a task file
    is never held whole, as bytes or as a parsed document, so memory stays bounded by one item. Raises
    ``_NotJson`` or, once the file is read, ``_NotShaped``."""
    import ijson

    shaped = False

    def events() -> Iterator[tuple[str, str, Any]]:
        nonlocal shaped
        for prefix, event, value in ijson.parse(fh, use_float=True):
            shaped = shaped or (prefix == "data.test" and event == "start_array")
            yield prefix, event, value

    try:
        yield from ijson.items(_bounded(events()), "data.test.item")
    except ijson.JSONError as exc:
        raise _NotJson(str(exc).strip().splitlines()[0]) from None
    if not shaped:
        raise _NotShaped('expected {"data": {"test": [...]}}')


def _check_items(task: MeraTask, test: Iterable[Any], expected: set[str] | None) -> dict[str, Any]:
    errors = _Errors()
    n = 0
    seen: set[int] = set()
    for i, item in enumerate(test):
        n += 1
        where = f"data.test[{i}]"
        ident = (
            item.get("meta", {}).get("id")
            if isinstance(item, dict) and isinstance(item.get("meta"), dict)
            else None
        )
        if not isinstance(ident, int) or isinstance(ident, bool):
            errors.add(f"{where}: field 'meta.id' must be an integer, got {ident!r}")
            continue
        where = f"{where} (id {ident})"
        outputs = item.get("outputs")
        if not isinstance(outputs, str) and not (task.answer == "JSON" and isinstance(outputs, dict)):
            errors.add(f"{where}: field 'outputs' must be a string, got {type(outputs).__name__}")
        if ident in seen:
            errors.add(f"{where}: duplicate id")
        seen.add(ident)
        if expected is not None and str(ident) not in expected:
            errors.add(f"{where}: unknown id (not in the test set)")
    report: dict[str, Any] = {"n": n, **errors.report()}
    if expected is not None:
        missing = sorted(expected - {str(x) for x in seen}, key=lambda s: (len(s), s))
        report["missing_ids"], report["n_missing_ids"] = missing[:MAX_ERRORS], len(missing)
    elif n != task.size:
        report["note"] = f"{n} answers; the published test set has {task.size}"
    return report


def _expected_ids(data: str | None) -> dict[str, set[str]] | None:
    if data is None:
        return None
    from omnieval.benchmarks.mera.importer import import_mera

    root = data.removeprefix("mera:")  # ``--data ROOT`` and ``--data mera:ROOT`` both work
    return {t.name: {_as_int_text(s.id) for s in t.iter_samples()} for t in import_mera(root)}


def _as_int_text(sample_id: str) -> str:
    """Submission ids are ints, so a string ``meta.id`` such as ``"007"`` is compared as ``"7"``."""
    return str(int(sample_id)) if sample_id.strip().lstrip("-").isdigit() else sample_id


@register_validator("mera")
def validate_mera(archive: Path, /, *, data: str | None = None, require_all: bool = False) -> dict[str, Any]:
    """Check a MERA submission zip; ``data`` (a ``mera:`` ROOT) enables the unknown/missing id checks."""
    try:
        zf = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise SubmissionError(f"{archive}: not a readable zip ({exc})") from None
    expected = _expected_ids(data)
    errors = _Errors()
    tasks: dict[str, Any] = {}
    with zf:
        names = zf.namelist()
        for name in names:
            if name == LOGS_NAME or name.endswith("/"):
                continue
            task = (
                find_task(name.removesuffix(".json")) if name.endswith(".json") and "/" not in name else None
            )
            if task is None or name != f"{task.submission}.json":
                hint = f" (expected {task.submission}.json)" if task else ""
                errors.add(f"{name}: not a MERA Multi task file{hint}")
                continue
            ids = None if expected is None else expected.get(task.name, set())
            try:
                with zf.open(name) as fh:
                    tasks[task.name] = {"file": name, **_check_items(task, _test_items(fh), ids)}
            except _NotJson as exc:
                tasks[task.name] = {
                    "file": name,
                    "n": 0,
                    "errors": [f"not valid JSON ({exc})"],
                    "n_errors": 1,
                }
            except (_NotShaped, _TooLarge) as exc:
                tasks[task.name] = {"file": name, "n": 0, "errors": [str(exc)], "n_errors": 1}
        missing = sorted(t.name for t in catalogue().tasks if t.name not in tasks)
        warnings = [] if LOGS_NAME in names else [f"{LOGS_NAME} is missing (experts verify runs from it)"]
    for block in tasks.values():
        for e in block["errors"]:
            errors.add(f"{block['file']}: {e}")
        errors.count += block["n_errors"] - len(block["errors"])  # the unlisted ones are counted
        if block.get("n_missing_ids"):
            warnings.append(f"{block['file']}: {block['n_missing_ids']} test ids have no answer")
    if missing and require_all:
        errors.add(f"missing tasks: {', '.join(missing)}")
    elif missing:
        warnings.append(f"missing tasks: {', '.join(missing)}")
    return {
        "ok": not errors.count,
        "format": "mera",
        "tasks": tasks,
        "missing_tasks": missing,
        **errors.report(),
        "warnings": warnings,
    }


def _answer_text(outputs: Any) -> str:
    return outputs if isinstance(outputs, str) else json.dumps(outputs, ensure_ascii=False)


@register_reader("mera")
def read_mera(archive: Path, /) -> dict[str, dict[str, str]]:
    """The answers of a (validated) MERA submission: catalogue task name -> sample id -> answer text.

    Ids are compared as integers (``"007"`` is ``"7"``), as in :func:`validate_mera`.
    """
    out: dict[str, dict[str, str]] = {}
    with zipfile.ZipFile(archive) as zf:
        for name in zf.namelist():
            task = (
                find_task(name.removesuffix(".json")) if name.endswith(".json") and "/" not in name else None
            )
            if task is None or name != f"{task.submission}.json":
                continue
            with zf.open(name) as fh:  # streamed: only the answers are kept, never the file or its document
                out[task.name] = {
                    _as_int_text(str(item["meta"]["id"])): _answer_text(item.get("outputs"))
                    for item in _test_items(fh)
                }
    return out
