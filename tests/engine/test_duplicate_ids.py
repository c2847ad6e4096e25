"""Duplicate sample ids: an error naming file, id and both places, before any request is sent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from omnieval.errors import SourceError
from omnieval.runner import RunConfig, resolve_tasks, run

from .conftest import ScriptedBackend, options, write_jsonl


def _dup_jsonl(tmp_path: Path) -> Path:
    rows = [{"id": str(i), "question": f"q{i}", "answer": "a"} for i in range(5)]
    rows[4]["id"] = "7"
    rows[2]["id"] = "7"
    path = write_jsonl(tmp_path / "dup.jsonl", rows)
    text = path.read_text().splitlines(keepends=True)
    path.write_text("".join([text[0], "\n", *text[1:]]))  # a blank line: line numbers are file lines
    return path


def test_validate_names_file_id_and_both_lines(tmp_path: Path) -> None:
    path = _dup_jsonl(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "omnieval", "validate", f"jsonl:{path}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0
    assert "duplicate" in proc.stderr and "'7'" in proc.stderr and str(path) in proc.stderr
    assert "lines 4 and 6" in proc.stderr, proc.stderr


def test_run_refuses_before_the_first_request(tmp_path: Path, scripted: type[ScriptedBackend]) -> None:
    path = _dup_jsonl(tmp_path)
    config = RunConfig(
        tasks=(f"jsonl:{path}",), model="scripted/m", output=tmp_path / "out", quiet=True, backend=options()
    )
    with pytest.raises(SourceError, match=r"duplicate sample id '7' at lines 4 and 6"):
        run(config)
    assert sum(scripted.calls.values()) == 0
    assert not (tmp_path / "out" / "samples.jsonl").exists()


def test_cli_run_exits_non_zero(tmp_path: Path) -> None:
    path = _dup_jsonl(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            f"jsonl:{path}",
            "--model",
            "baseline/oracle",
            "-o",
            str(tmp_path / "out"),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0 and "duplicate" in proc.stderr and "'7'" in proc.stderr


def test_source_without_id_column_keeps_positions(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "same.jsonl", [{"question": "q", "answer": "a"}] * 3)
    (tmp_path / "t.yaml").write_text(
        "name: same\nsource: {type: jsonl, path: same.jsonl, fields: {id: null}}\nmetrics: [exact_match]\n"
    )
    [task] = resolve_tasks([str(tmp_path / "t.yaml")])
    task.scan_ids()
    assert [s.id for s in task.iter_samples()] == ["0", "1", "2"]


def test_parquet_scan_reads_ids_and_names_rows(tmp_path: Path) -> None:
    rows = [{"id": i % 3, "question": "q", "answer": "a", "blob": b"x" * 10} for i in range(5)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet")
    (tmp_path / "t.yaml").write_text(
        "name: pq\nsource: {type: parquet, path: d.parquet}\nmetrics: [exact_match]\n"
    )
    [task] = resolve_tasks([str(tmp_path / "t.yaml")])
    with pytest.raises(SourceError, match=r"duplicate sample id '0' at rows 1 and 4"):
        task.scan_ids()
    with pytest.raises(SourceError, match=r"duplicate sample id '0' at rows 1 and 4"):
        list(task.iter_samples())


def test_in_memory_task_is_scanned_too() -> None:
    from omnieval.sources import Task
    from omnieval.types import Sample, TaskSpec

    spec = TaskSpec.model_validate({"name": "mem", "metrics": ["exact_match"]})
    samples = [Sample(id=i, input="q", targets=("a",)) for i in ("a", "b", "a")]
    with pytest.raises(SourceError, match=r"duplicate sample id 'a' at samples 1 and 3"):
        Task.from_samples(spec, samples).scan_ids()
