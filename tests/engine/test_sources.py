from __future__ import annotations

import json
from pathlib import Path

import pytest

from omnieval.sources import load_task_file, spec_from_dict, task_from_spec

from .conftest import write_jsonl

ROWS = [
    {"id": 1, "question": "q1", "answer": "a1", "image": "img/1.png", "cat": "x"},
    {"id": 2, "question": "q2", "answer": ["a2", "b2"], "image": "img/2.png", "cat": "y"},
]
FIELDS = {"media": [{"field": "image", "kind": "image"}]}


def _load(tmp_path: Path, source: dict[str, object]) -> list:
    spec = spec_from_dict({"name": "t", "source": {**source, "fields": FIELDS}}, path="inline")
    return list(task_from_spec(spec, base_dir=tmp_path, origin="inline").iter_samples())


def _check(samples: list) -> None:
    assert [s.id for s in samples] == ["1", "2"]
    assert samples[1].targets == ("a2", "b2")
    assert samples[0].media[0].kind == "image" and samples[0].media[0].name == "image"
    assert samples[0].metadata["cat"] == "x"


def test_jsonl_media_relative_to_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write_jsonl(tmp_path / "sub" / "d.jsonl", ROWS)
    samples = _load(tmp_path, {"type": "jsonl", "path": "sub/d.jsonl"})
    _check(samples)
    assert samples[0].media[0].path == str(tmp_path / "sub" / "img" / "1.png")


def test_json_list_and_wrapped(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text(json.dumps({"data": ROWS}), encoding="utf-8")
    _check(_load(tmp_path, {"type": "json", "path": "d.json"}))


def test_csv(tmp_path: Path) -> None:
    import csv

    with (tmp_path / "d.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["id", "question", "answer", "image", "cat"])
        writer.writeheader()
        writer.writerow({**ROWS[0]})
    samples = _load(tmp_path, {"type": "csv", "path": "d.csv"})
    assert samples[0].id == "1" and samples[0].targets == ("a1",)


def test_parquet_streams_row_groups(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [dict(ROWS[0], id=i) for i in range(1000)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet", row_group_size=100)
    spec = spec_from_dict(
        {"name": "t", "source": {"type": "parquet", "path": "d.parquet", "fields": FIELDS}}, path="x"
    )
    task = task_from_spec(spec, base_dir=tmp_path, origin="x")
    assert task.size == 1000
    stream = task.iter_samples()
    assert next(stream).id == "0"  # lazily produced: nothing else had to be read
    assert sum(1 for _ in stream) == 999


def test_hf_saved_dataset_with_image_feature(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    from io import BytesIO

    from PIL import Image

    buf = BytesIO()
    Image.new("RGB", (4, 4), "red").save(buf, format="PNG")
    features = datasets.Features(
        {
            "id": datasets.Value("string"),
            "question": datasets.Value("string"),
            "answer": datasets.Value("string"),
            "image": datasets.Image(),
        }
    )
    ds = datasets.Dataset.from_dict(
        {
            "id": ["a"],
            "question": ["цвет?"],
            "answer": ["красный"],
            "image": [{"bytes": buf.getvalue(), "path": None}],
        },
        features=features,
    )
    ds.save_to_disk(str(tmp_path / "ds"))
    samples = _load(tmp_path, {"type": "hf_disk", "path": "ds"})
    assert samples[0].id == "a" and samples[0].media[0].data == buf.getvalue()


def test_jsonl_importer_multiple_choice(tmp_path: Path) -> None:
    from omnieval.prompts import gold_answers
    from omnieval.runner import resolve_tasks

    write_jsonl(
        tmp_path / "mc.jsonl", [{"id": "1", "question": "?", "choices": ["x", "y", "z"], "answer": "z"}]
    )
    (task,) = resolve_tasks([f"jsonl:{tmp_path / 'mc.jsonl'}"])
    assert task.name == "mc" and task.spec.parser.name == "mc_letter"
    (sample,) = list(task.iter_samples())
    assert gold_answers(sample, task.spec) == ("C",)


def test_task_yaml_can_point_at_the_same_jsonl(tmp_path: Path, qa_file: Path) -> None:
    (tmp_path / "qa.yaml").write_text(
        f"name: qa_yaml\nsource: {{type: jsonl, path: {qa_file.name}}}\n", encoding="utf-8"
    )
    task = load_task_file(tmp_path / "qa.yaml")
    assert task.size == 10 and next(task.iter_samples()).targets == ("0",)


def test_hf_local_dataset_folder(tmp_path: Path) -> None:
    pytest.importorskip("datasets")
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "repo" / "data").mkdir(parents=True)
    rows = [{"id": str(i), "question": f"q{i}", "answer": f"a{i}"} for i in range(3)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "repo" / "data" / "test-00000-of-00001.parquet")
    spec = spec_from_dict(
        {"name": "t", "source": {"type": "hf_folder", "path": "repo", "split": "test"}}, path="x"
    )
    samples = list(task_from_spec(spec, base_dir=tmp_path, origin="x").iter_samples())
    assert [s.targets for s in samples] == [("a0",), ("a1",), ("a2",)]
