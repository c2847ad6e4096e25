"""The ``spoken`` submission format: spoken answers packed with their audio.

``omnieval pack RUN --format spoken -o OUT.zip`` writes one ``<task>.jsonl`` per task with spoken answers
(one line per sample: ``sample_id``, ``response`` — the transcript —, ``audio`` — the file's path in the
archive —, ``sha256``, ``format``, ``sample_rate``, ``duration_s``, ``problem``) and every answer's audio
file under ``audio/``, named by its content hash as in the run folder, so a file two runs share is stored
once. A text leaderboard format (``mera``, ``art``) packs the transcript only. Packing checks each file
against the hash its record names: a file missing or changed since the run is an error naming the sample.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from omnieval.errors import SubmissionError
from omnieval.submission.base import register_packer, register_validator
from omnieval.submission.runs import latest_records
from omnieval.types import SampleResult

__all__ = ["pack_spoken", "validate_spoken"]


def _line(record: SampleResult) -> str:
    audio = record.audio
    assert audio is not None
    keep = ("path", "sha256", "format", "sample_rate", "duration_s", "problem")
    fields = audio.model_dump(include=set(keep))
    fields["audio"] = fields.pop("path")
    return json.dumps(
        {"sample_id": record.sample_id, "response": record.response, **fields}, ensure_ascii=False
    )


def _audio_bytes(run: Path, record: SampleResult) -> bytes:
    audio = record.audio
    assert audio is not None
    where = f"{run}: sample {record.task}/{record.sample_id}"
    path = run / audio.path
    if not path.is_file():
        raise SubmissionError(f"{where}: its spoken answer {audio.path} is missing from the run folder")
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != audio.sha256:
        raise SubmissionError(f"{where}: {audio.path} changed since the run (sha256 differs from the record)")
    return data


@register_packer("spoken")
def pack_spoken(run_dirs: list[Path], out: Path, /, *, repeat: int | None = None) -> Path:
    """Zip the spoken answers of finished runs with their audio files (module docstring); of a run with
    repeats, repeat ``repeat`` (see :func:`latest_records`)."""
    per_task: dict[str, dict[str, str]] = {}
    files: dict[str, bytes] = {}
    for run in map(Path, run_dirs):
        for task, records in latest_records(run, repeat=repeat).items():
            for record in records.values():
                if record.audio is None:
                    continue
                lines = per_task.setdefault(task, {})
                if record.sample_id in lines:
                    raise SubmissionError(f"{task}/{record.sample_id}: answered in more than one of the runs")
                files[record.audio.path] = _audio_bytes(run, record)
                lines[record.sample_id] = _line(record)
    if not per_task:
        raise SubmissionError(
            f"no spoken answers in {', '.join(map(str, run_dirs))}: --format spoken packs runs whose model "
            "answered by voice (a text run packs with its leaderboard's format)"
        )
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for task, lines in sorted(per_task.items()):
            zf.writestr(f"{task}.jsonl", "\n".join(lines.values()) + "\n")
        for name, data in sorted(files.items()):
            zf.writestr(name, data, compress_type=zipfile.ZIP_STORED)  # audio does not deflate
    return out


def _check_task(zf: zipfile.ZipFile, name: str) -> tuple[int, list[str]]:
    errors: list[str] = []
    lines = zf.read(name).decode("utf-8", errors="replace").splitlines()
    n = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            path, sha = str(item["audio"]), str(item["sha256"])
        except (json.JSONDecodeError, KeyError, TypeError):
            errors.append(f"{name} line {number}: not a JSON object with audio and sha256")
            continue
        n += 1
        try:
            data = zf.read(path)
        except KeyError:
            errors.append(f"{name} line {number}: {path} is not in the archive")
            continue
        if hashlib.sha256(data).hexdigest() != sha:
            errors.append(f"{name} line {number}: {path} does not match its sha256")
    return n, errors


@register_validator("spoken")
def validate_spoken(archive: Path, /) -> dict[str, Any]:
    """Per task: how many answers; errors: a line without its audio, a file that does not match its hash."""
    try:
        zf = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise SubmissionError(f"{archive}: not a readable zip ({exc})") from None
    tasks: dict[str, Any] = {}
    errors: list[str] = []
    with zf:
        for name in zf.namelist():
            if "/" not in name and name.endswith(".jsonl"):
                n, problems = _check_task(zf, name)
                tasks[name.removesuffix(".jsonl")] = {"file": name, "n": n, "errors": problems}
                errors.extend(problems)
    if not tasks:
        errors.append("no <task>.jsonl in the archive")
    return {"ok": not errors, "format": "spoken", "tasks": tasks, "errors": errors}
