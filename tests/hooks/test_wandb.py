"""``--log-to wandb`` in W&B's offline mode: the offline run directory is read back with wandb's own
reader."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("wandb")


def _omnieval(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "omnieval", *args], capture_output=True, text=True, timeout=240, env=env
    )


_BLOCK, _HEADER = 32768, 7


def _wandb_records(path: Path) -> Iterator[Any]:
    """The protobuf records of a ``.wandb`` file: W&B's LevelDB-style log (a 7-byte ``:W&B`` file header,
    32 KiB blocks of ``crc32, length, type`` chunks, type FULL=1 or FIRST/MIDDLE/LAST=2/3/4), decoded with
    wandb's own ``Record`` message. (wandb 0.31 ships no Python reader of this file.)"""
    from wandb.proto import wandb_internal_pb2

    data = path.read_bytes()
    assert data[:4] == b":W&B", path
    pos, pending = _HEADER, b""
    while pos + _HEADER <= len(data):
        left = _BLOCK - pos % _BLOCK
        if left < _HEADER:  # block trailer padding
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos : pos + _HEADER])
        if kind == 0 and length == 0:
            break
        chunk = data[pos + _HEADER : pos + _HEADER + length]
        pos += _HEADER + length
        pending = chunk if kind in (1, 2) else pending + chunk
        if kind in (1, 4):
            rec = wandb_internal_pb2.Record()
            rec.ParseFromString(pending)
            yield rec


def _read_offline_run(run_dir: Path) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """Summary, history rows and run id, decoded from the ``.wandb`` transaction log."""
    (log,) = sorted(run_dir.glob("wandb/offline-run-*/run-*.wandb"))[-1:]
    summary: dict[str, Any] = {}
    history: list[dict[str, Any]] = []
    run_id = ""
    for rec in _wandb_records(log):
        kind = rec.WhichOneof("record_type")
        if kind == "run":
            run_id = rec.run.run_id
        elif kind == "summary":
            summary.update(
                {i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in rec.summary.update}
            )
        elif kind == "history":
            history.append(
                {i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in rec.history.item}
            )
    return summary, history, run_id


def test_offline_wandb_run_holds_scores_table_and_report(tmp_path, qa_task, replay_answers) -> None:
    out = tmp_path / "run"
    env = {
        **os.environ,
        "WANDB_MODE": "offline",
        "WANDB_SILENT": "true",
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    args = ("run", "--tasks", f"jsonl:{qa_task}", "--model", f"replay/{replay_answers}", "--output", str(out))
    proc = _omnieval(*args, "--log-to", "wandb", "--quiet", env=env)
    assert proc.returncode == 0, proc.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["hooks"]["wandb"]["failures"] == 0, results["hooks"]
    summary, history, run_id = _read_offline_run(out)
    assert summary["qa/score"] == pytest.approx(0.7)
    assert summary["qa/states/ok"] == 10 and summary["qa/n"] == 10
    low, high = results["tasks"]["qa"]["ci95"]
    assert summary["qa/ci95_low"] == pytest.approx(low) and summary["qa/ci95_high"] == pytest.approx(high)
    table = next(h for h in history if "samples/_type" in h)  # nested keys, joined with "/"
    assert table["samples/_type"] == "table-file" and table["samples/nrows"] == 10
    (files,) = list(out.glob("wandb/offline-run-*/files"))
    stored = json.loads(next(files.glob("media/table/samples_*.table.json")).read_text())
    assert stored["columns"][:7] == ["task", "sample_id", "prompt", "response", "target", "score", "state"]
    rows = {r[1]: r for r in stored["data"]}
    assert rows["3"][3:7] == ["6", "6", 1.0, "ok"] and rows["8"][3:7] == ["99", "16", 0.0, "ok"]
    assert "3+3" in rows["3"][2]
    assert (out / "wandb_run_id").read_text().strip() == run_id
    assert {"report.html", "results.json", "manifest.json"} <= _artifact_files(out, "evaluation-report")

    # resuming (one more task) continues the same W&B run
    proc = _omnieval(*args, "--log-to", "wandb", "--quiet", "--limit", "10", env=env)
    assert proc.returncode == 0, proc.stderr
    runs = sorted(out.glob("wandb/offline-run-*/run-*.wandb"))
    assert len(runs) == 2 and all(p.name == f"run-{run_id}.wandb" for p in runs)


def _artifact_files(out: Path, kind: str) -> set[str]:
    (log,) = sorted(out.glob("wandb/offline-run-*/run-*.wandb"))[:1]
    records = [r.artifact for r in _wandb_records(log) if r.WhichOneof("record_type") == "artifact"]
    return {e.path for a in records if a.type == kind for e in a.manifest.contents}
