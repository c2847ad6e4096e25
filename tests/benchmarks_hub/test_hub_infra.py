"""``--tasks BENCH:DIR`` over a generated copy in the Hub layout: streaming, ids, bad data, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from omnieval.api import evaluate
from omnieval.errors import SourceError
from omnieval.runner.resolve import resolve_tasks
from omnieval.sources.hub import hub_benchmarks
from omnieval.testing.hub_copies import hub_row_ids, write_hub_copy
from tests.benchmarks_hub.helpers import replay


def test_generated_copy_has_the_hub_layout_and_features(tmp_path: Path) -> None:
    root = write_hub_copy("mmstar", tmp_path / "MMStar", n=5, row_group_size=2)
    file = root / "mmstar.parquet"
    meta = pq.ParquetFile(file)
    assert meta.num_row_groups == 3
    features = json.loads(meta.schema_arrow.metadata[b"huggingface"])["info"]["features"]
    assert features["image"] == {"_type": "Image"}
    assert meta.schema_arrow.field("image").type.names == ["bytes", "path"]


def test_the_bench_prefix_resolves_through_the_registry(tmp_path: Path) -> None:
    root = write_hub_copy("mmstar", tmp_path / "MMStar", n=3)
    (task,) = resolve_tasks([f"mmstar:{root}"])
    assert task.name == "mmstar" and task.size == 3
    assert "mmstar" in hub_benchmarks.names()


def test_missing_column_names_file_benchmark_and_field(tmp_path: Path) -> None:
    root = write_hub_copy("mmstar", tmp_path / "MMStar", n=2, edit=lambda i, row: row | {"answer": None})
    rows = [
        {k: v for k, v in r.items() if k != "answer"}
        for r in pq.read_table(root / "mmstar.parquet").to_pylist()
    ]
    write_hub_copy("mmstar", root, rows={None: rows})
    with pytest.raises(SourceError, match=r"mmstar.parquet.*field 'answer'") as err:
        resolve_tasks([f"mmstar:{root}"])
    assert "mmstar:" in str(err.value)


def test_missing_split_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match=r"field 'split': mmstar: split 'val' is missing"):
        resolve_tasks([f"mmstar:{tmp_path / 'empty'}"])


def test_undecodable_image_names_the_sample_and_field(tmp_path: Path) -> None:
    def corrupt(position: int, row: dict) -> dict:
        return row | {"image": {"bytes": b"not an image", "path": "x.png"}} if position == 2 else row

    root = write_hub_copy("mmstar", tmp_path / "MMStar", n=4, edit=corrupt)
    (task,) = resolve_tasks([f"mmstar:{root}"])
    with pytest.raises(SourceError, match=r"sample '2', field 'image': mmstar: the image cannot be decoded"):
        list(task.iter_samples())


def test_ids_are_row_positions_across_row_groups(tmp_path: Path) -> None:
    root = write_hub_copy("mmstar", tmp_path / "MMStar", n=7, row_group_size=3)
    assert hub_row_ids("mmstar", root) == [str(i) for i in range(7)]


def test_cli_fixed_interface(tmp_path: Path) -> None:
    root = write_hub_copy("mmstar", tmp_path / "MMStar", n=4)
    model = replay(tmp_path, "mmstar", {"0": "A", "1": "A", "2": "(C)", "3": "no idea"})
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            f"mmstar:{root}",
            "--model",
            model,
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["tasks"]["mmstar"]["score"] == pytest.approx(0.5)  # golds A B C D: 0 and 2 right
    scores = {
        r["sample_id"]: r["score"] for r in map(json.loads, (out / "samples.jsonl").read_text().splitlines())
    }
    assert scores == {"0": 1.0, "1": 0.0, "2": 1.0, "3": 0.0}


def test_tasks_listing_names_each_published_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    from omnieval.cli.listing import _hub_rows

    rows = {r["name"]: r for r in _hub_rows()}
    assert {"mmmu:DIR", "mmstar:DIR", "mmbench:DIR", "mmbench_ru:DIR", "videomme:DIR"} <= rows.keys()
    assert rows["videomme:DIR"]["modalities"] == ["video"] and rows["mmmu:DIR"]["size"] == 900
    assert rows["mmbench_ru:DIR"]["licence"] == "apache-2.0"
    assert rows["mmstar:DIR"]["source"] == "hf.co/datasets/Lin-Chen/MMStar (val)"
    for row in rows.values():
        assert Path(row["docs"]).exists(), row["docs"]


def test_breakdowns_reach_the_report_and_the_leaderboard(tmp_path: Path) -> None:
    from omnieval.aggregate.schemes import build_board
    from omnieval.types.files import ResultsFile, load_file

    root = write_hub_copy("mmstar", tmp_path / "MMStar", n=4)
    model = replay(tmp_path, "mmstar", {"0": "A", "1": "A", "2": "C", "3": "A"})
    out = tmp_path / "out"
    evaluate(model=model, tasks=[f"mmstar:{root}"], output=out, quiet=True)
    table = json.loads((out / "report_tables" / "breakdowns.json").read_text())
    rows = table["rows"] if isinstance(table, dict) else table
    assert {"task": "mmstar", "breakdown": "category", "value": "math", "n": 2, "score": 0.0} in rows
    assert "mmstar: score by l2_category" in (out / "report.html").read_text()
    board = build_board("tasks", [load_file(out / "results.json", ResultsFile)], {})
    assert board["rows"] == [{"model": model, "mmstar": 0.5}]
    assert board["boards"]["mmstar by category"]["rows"] == [
        {"category": "coarse perception", model: 1.0},
        {"category": "math", model: 0.0},
    ]
