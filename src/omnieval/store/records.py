"""``samples.jsonl``: append-only, one line per finished sample, safe against ``kill -9``.

Each line is handed to the operating system with a single unbuffered ``write``, so a killed run
leaves at most one partial last line, which :func:`open_records` cuts off before appending again.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any, NamedTuple

import orjson
import pydantic_core

from omnieval.errors import StoreError
from omnieval.types import SampleResult

__all__ = [
    "RecordId",
    "RecordKey",
    "RecordWriter",
    "iter_records",
    "open_records",
    "patch_records",
    "read_records",
    "record_id",
    "rewrite_lines",
    "rewrite_records",
    "scan_keys",
    "typed_records",
]

RecordId = tuple[str, str, int | None]
"""``(task, sample_id, repeat)``: what names one record of a run."""


def record_id(record: Mapping[str, Any]) -> RecordId:
    """The record's ``(task, sample_id, repeat)``: under repeated sampling a sample has one record per
    repeat, so anything that indexes records must key by this, never by the sample id alone."""
    return str(record["task"]), str(record["sample_id"]), record.get("repeat")


def _repair_tail(path: Path) -> None:
    """Drop a partial last line left by a crash."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        fh.seek(0)
        data = fh.read()
        cut = data.rfind(b"\n") + 1
        fh.truncate(cut)


def iter_records(path: Path) -> Iterator[dict[str, Any]]:
    """Raw record dicts; a malformed line is an error naming the line (except a crash-cut last line)."""
    if not path.exists():
        return
    with path.open("rb") as fh:
        previous: bytes | None = None
        lineno = 0
        for line in fh:  # look one line ahead: only the very last line may be cut by a crash
            record = _parse(previous, path=path, lineno=lineno, last=False) if previous is not None else None
            if record is not None:
                yield record
            previous = line
            lineno += 1
        if previous is not None and previous.strip():
            record = _parse(previous, path=path, lineno=lineno, last=not previous.endswith(b"\n"))
            if record is not None:
                yield record


def _parse(line: bytes, *, path: Path, lineno: int, last: bool) -> Any:
    if not line.strip():
        return None
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        if last:
            return None
        raise StoreError(f"{path}: line {lineno} is not valid JSON") from None


def typed_records(path: Path) -> Iterator[SampleResult]:
    """Each record through :class:`SampleResult`; one that does not validate names the file, the
    record's position and sample, and the field."""
    from omnieval.types.files import record_model

    for n, record in enumerate(iter_records(path), 1):
        yield record_model(record, source=f"{path}: record {n}")


def read_records(path: Path) -> list[SampleResult]:
    return list(typed_records(path))


class RecordWriter:
    """Appends records, each line handed to the operating system as it is written (one ``write`` call,
    no buffer of ours): a killed run keeps every record it wrote. An unbuffered binary file: a text
    file's encode and flush were two-thirds of a record's cost."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh

    def write(self, result: SampleResult) -> bytes:
        """Append one record; the JSON line written (run hooks read it back instead of dumping it again)."""
        line = pydantic_core.to_json(result)
        data = memoryview(line + b"\n")
        while data:  # a regular file takes it whole; a short write is resumed, a full disk raises
            written = self._fh.write(data)
            if not written:
                raise StoreError(f"{self._fh.name}: the file took none of a record's {len(data)} bytes")
            data = data[written:]
        return line

    def close(self) -> None:
        self._fh.close()


def open_records(path: Path) -> RecordWriter:
    """Open for appending after repairing a crash-cut tail."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _repair_tail(path)
    return RecordWriter(path.open("ab", buffering=0))


def rewrite_records(path: Path, records: list[dict[str, Any]] | list[SampleResult]) -> None:
    """Atomically replace the file (used to drop error records before a retry, and by re-scoring)."""
    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for rec in records:
            line = (
                rec.model_dump_json()
                if isinstance(rec, SampleResult)
                else json.dumps(rec, ensure_ascii=False)
            )
            fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class RecordKey(NamedTuple):
    """What resuming needs of one record, without parsing the whole line."""

    task: str
    sample_id: str
    state: str
    chain_answer: str | None
    """The response, for chain steps only (their successors need it as history)."""
    line: bytes
    repeat: int | None = None
    """Which repeated answer of the sample (``None`` without repeats)."""


_PREFIX = re.compile(rb'^\{"task":("(?:[^"\\]|\\.)*"),"sample_id":("(?:[^"\\]|\\.)*"),"state":"([a-z_]+)"')
_REPEAT = re.compile(rb'"repeat":(null|\d+)\}\s*$')
"""The record's last field (``SampleResult.repeat``), read from the end of the line."""


def _key(line: bytes, *, path: Path, lineno: int) -> RecordKey:
    match = _PREFIX.match(line)
    tail = _REPEAT.search(line, max(0, len(line) - 40))
    if (
        match is not None and tail is not None and b'"chain":null' in line
    ):  # the fast path: lines this module wrote
        task, sample_id = orjson.loads(match[1]), orjson.loads(match[2])
        repeat = None if tail[1] == b"null" else int(tail[1])
        return RecordKey(task, str(sample_id), match[3].decode(), None, line, repeat)
    record = _parse(line, path=path, lineno=lineno, last=False)
    chain = record.get("response") or "" if record.get("chain") is not None else None
    return RecordKey(
        record["task"], str(record["sample_id"]), record["state"], chain, line, record.get("repeat")
    )


def scan_keys(path: Path) -> Iterator[RecordKey]:
    """Keys of every complete record; a crash-cut last line is left out."""
    if not path.exists():
        return
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.endswith(b"\n"):
                return  # only the very last line can lack its newline
            if line.strip():
                yield _key(line, path=path, lineno=lineno)


def rewrite_lines(path: Path, lines: list[bytes]) -> None:
    """Atomically replace the file with raw record lines (no re-serialisation)."""
    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("wb") as fh:
        fh.writelines(lines)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def patch_records(path: Path, changes: Mapping[int, Mapping[str, Any]]) -> None:
    """Atomically replace fields of some records, streamed: ``changes`` maps a record's index (its
    position in :func:`iter_records`) to the fields it gets; every other line is copied byte for byte."""
    tmp = path.with_suffix(".jsonl.tmp")
    with path.open("rb") as src, tmp.open("wb") as fh:
        index = 0
        for line in src:
            if not line.strip():
                continue
            change = changes.get(index)
            if change is not None:
                line = orjson.dumps(orjson.loads(line) | dict(change)) + b"\n"
            fh.write(line)
            index += 1
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
