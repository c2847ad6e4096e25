from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from omnieval.benchmarks.mera.catalog import catalogue
from omnieval.benchmarks.mera.mini import make_mini
from omnieval.errors import SourceError, TaskFileError
from omnieval.metrics import bind_metric
from omnieval.sources.importers import importers

importer = importers.get("mera")


def test_root_imports_all_18_tasks_with_samples(mini_root: Path) -> None:
    tasks = importer(str(mini_root))
    assert sorted(t.name for t in tasks) == sorted(catalogue().by_name())
    for task in tasks:
        samples = list(task.iter_samples())
        info = catalogue().by_name()[task.name]
        assert task.size == len(samples) and task.iter_demos is not None
        assert [s.id for s in samples] == [str(s.metadata["meta"]["id"]) for s in samples]
        for s in samples:
            assert {m.kind for m in s.media} == set(info.media.values())
            assert all(f"<{m.name}>" in s.input for m in s.media)  # tags left for the prompt stage
            assert "{question}" not in s.input and "{option_a}" not in s.input
            assert bool(s.targets) == info.public
            assert (s.choices is not None) == (info.answer == "MC")
        assert task.spec.score_key == "fs"
        assert task.spec.metadata["answers_hidden"] == (not info.public)
        keys = {k for m in task.spec.metrics for k in bind_metric(m).keys}
        assert "em" in keys and task.spec.metadata["licence"] == info.licence


def test_one_dataset_and_folder_name_variants(mini_root: Path, tmp_path: Path) -> None:
    [task] = importer(str(mini_root / "RuSLUn"))
    assert task.name == "ruslun"
    shutil.copytree(mini_root / "ruHHH-Image", tmp_path / "ruhhh_image")
    [task] = importer(str(tmp_path / "ruhhh_image"))
    assert task.name == "ruhhh_image"
    samples = list(task.iter_samples())
    groups = [s.metadata["mera_group"] for s in samples]
    assert len(set(groups)) == 2 and groups.count(groups[0]) == 3  # same image+question ⇒ one group


def test_rutie_samples_form_ordered_dialogues(mini_root: Path) -> None:
    [task] = importer(str(mini_root / "ruTiE-Audio"))
    samples = list(task.iter_samples())
    assert [(s.chain, s.chain_index) for s in samples] == [
        ("dialog_0", 0),
        ("dialog_0", 1),
        ("dialog_0", 2),
        ("dialog_1", 0),
        ("dialog_1", 1),
        ("dialog_1", 2),
    ]
    assert task.spec.prompt.renderer is not None and task.spec.prompt.renderer.name == "mera_rutie"


def _rewrite(path: Path, edit: Any) -> None:
    rows = pq.read_table(path).to_pylist()
    edit(rows)
    pq.write_table(pa.Table.from_pylist(rows), path)


@pytest.fixture
def weird_copy(tmp_path: Path) -> Path:
    make_mini(tmp_path, n=3, tasks=["weird"])
    return tmp_path / "WEIRD"


def test_missing_test_split_names_the_task(weird_copy: Path) -> None:
    (weird_copy / "data" / "test-00000-of-00001.parquet").unlink()
    with pytest.raises(TaskFileError, match=r"WEIRD.*weird: missing split 'test'"):
        importer(str(weird_copy))


def test_field_errors_name_task_sample_and_field(weird_copy: Path) -> None:
    test = weird_copy / "data" / "test-00000-of-00001.parquet"

    def drop_question(rows: list[dict[str, Any]]) -> None:
        rows[1]["inputs"]["question"] = None
        rows[1]["instruction"] = "{question} <image> {option_a} {option_b} {option_c}"

    _rewrite(test, drop_question)
    [task] = importer(str(weird_copy))
    with pytest.raises(SourceError, match=r"test-00000.*sample '1'.*field 'inputs.option_c'.*weird"):
        list(task.iter_samples())


def test_absent_media_is_an_error(weird_copy: Path) -> None:
    test = weird_copy / "data" / "test-00000-of-00001.parquet"

    def drop_image(rows: list[dict[str, Any]]) -> None:
        rows[2]["inputs"]["image"] = {"bytes": None, "path": "nowhere.png"}

    _rewrite(test, drop_image)
    [task] = importer(str(weird_copy))
    with pytest.raises(SourceError, match=r"sample '2'.*field 'inputs.image'.*does not exist"):
        list(task.iter_samples())


def test_missing_meta_id_and_duplicates(weird_copy: Path) -> None:
    test = weird_copy / "data" / "test-00000-of-00001.parquet"
    _rewrite(test, lambda rows: rows[2]["meta"].update(id=rows[0]["meta"]["id"]))
    [task] = importer(str(weird_copy))
    with pytest.raises(SourceError, match=r"sample '0'.*field 'meta.id'.*duplicate"):
        list(task.iter_samples())
    # the id scan a run does before its first request reads only meta and names the task and both rows
    with pytest.raises(
        SourceError,
        match=r"task weird.*duplicate sample id '0' at test-00000-of-00001.parquet row 1 and "
        r"test-00000-of-00001.parquet row 3",
    ):
        task.scan_ids()


def test_save_to_disk_layout(mini_root: Path, tmp_path: Path) -> None:
    target = tmp_path / "ruCLEVR"
    for split in ("test", "shots"):
        table = pq.read_table(mini_root / "ruCLEVR" / "data" / f"{split}-00000-of-00001.parquet")
        (target / split).mkdir(parents=True)
        arrow = str(target / split / "data-00000-of-00001.arrow")
        with pa.OSFile(arrow, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
    [task] = importer(str(target))
    assert len(list(task.iter_samples())) == 6 and task.iter_demos is not None


def test_dataset_folder_with_an_unknown_name(mini_root: Path, tmp_path: Path) -> None:
    shutil.copytree(mini_root / "WEIRD", tmp_path / "my_copy")
    with pytest.raises(TaskFileError, match=r"my_copy.*matches no MERA Multi task"):
        importer(str(tmp_path / "my_copy"))


def test_root_without_datasets(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match="no MERA dataset folders"):
        importer(str(tmp_path))


def test_generated_media_decode_through_the_media_stage(mini_root: Path, tmp_path: Path) -> None:
    from omnieval.media.processor import processor_for
    from omnieval.types import MediaPolicy

    processor = processor_for(MediaPolicy(), tmp_path / "cache")
    kinds = set()
    for task in importer(str(mini_root)):
        sample = next(iter(task.iter_samples()))
        for ref in sample.media:
            prepared = processor.prepare(ref)
            kinds.add((ref.kind, type(prepared).__name__))
    assert kinds == {("image", "PreparedImage"), ("audio", "PreparedAudio"), ("video", "PreparedVideo")}


def test_unlisted_media_input_becomes_a_media_part(weird_copy: Path) -> None:
    """A ``{bytes, path}`` input the catalogue does not list (e.g. a second image) is still media."""
    test = weird_copy / "data" / "test-00000-of-00001.parquet"

    def add_image(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            row["inputs"]["image_2"] = row["inputs"]["image"]
            row["instruction"] += "\n<image_2>"

    _rewrite(test, add_image)
    [task] = importer(str(weird_copy))
    sample = next(iter(task.iter_samples()))
    assert [(m.name, m.kind) for m in sample.media] == [("image", "image"), ("image_2", "image")]
    assert "image_2" not in sample.fields and sample.input.endswith("<image_2>")


def test_only_placeholders_the_instruction_uses_are_required(weird_copy: Path) -> None:
    test = weird_copy / "data" / "test-00000-of-00001.parquet"

    def no_question(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            del row["inputs"]["question"]
            row["instruction"] = "Выберите вариант. <image> A. {option_a} B. {option_b}"

    _rewrite(test, no_question)
    [task] = importer(str(weird_copy))
    samples = list(task.iter_samples())
    assert len(samples) == 3
    first = pq.read_table(test).to_pylist()[0]["inputs"]
    assert samples[0].input == f"Выберите вариант. <image> A. {first['option_a']} B. {first['option_b']}"
    assert "question" not in samples[0].fields


def test_a_used_placeholder_without_input_names_task_sample_and_placeholder(weird_copy: Path) -> None:
    test = weird_copy / "data" / "test-00000-of-00001.parquet"

    def uses_hint(rows: list[dict[str, Any]]) -> None:
        rows[2]["instruction"] = "{question} <image> {hint}"

    _rewrite(test, uses_hint)
    [task] = importer(str(weird_copy))
    with pytest.raises(
        SourceError, match=r"sample '2'.*field 'inputs.hint'.*weird: the instruction uses \{hint\}"
    ):
        list(task.iter_samples())


def test_run_refuses_duplicate_ids_before_any_request(weird_copy: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    test = weird_copy / "data" / "test-00000-of-00001.parquet"
    _rewrite(test, lambda rows: rows[2]["meta"].update(id=rows[0]["meta"]["id"]))
    out = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            f"mera:{weird_copy}",
            "--model",
            "baseline/oracle",
            "-o",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0 and "duplicate sample id '0'" in proc.stderr and "row 1 and" in proc.stderr
    assert not (out / "samples.jsonl").exists()
