"""Folder-level variants (names, split layouts, hidden answers) and the RuSLUn/ruTiE/ruHHH row forms."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from omnieval.benchmarks.mera.catalog import find_task
from omnieval.benchmarks.mera.metrics import ruslun_scores
from omnieval.errors import SourceError
from tests.mera.variant_kit import importer, mc_row, png, samples, wav, write_split


@pytest.mark.parametrize(
    ("folder", "task"),
    [
        ("RuSLUn", "ruslun"),
        ("ruSLUn", "ruslun"),
        ("ruslun", "ruslun"),
        ("ruHHH-Image", "ruhhh_image"),
        ("ruhhh_image", "ruhhh_image"),
        ("ruHHH_Image", "ruhhh_image"),
        ("ruEnvAQA", "ruenvaqa"),
        ("ruTiE-Audio", "rutie_audio"),
        ("rutie_audio", "rutie_audio"),
        ("MERA-evaluation--WEIRD", "weird"),
        ("datasets--MERA-evaluation--ruTiE-Image", "rutie_image"),
        ("ruEnvVQA", "ruenvaqa"),
    ],
)
def test_folder_names_resolve(folder: str, task: str) -> None:
    found = find_task(folder)
    assert found is not None and found.name == task


def test_owner_folder_one_level_down(tmp_path: Path) -> None:
    write_split(
        tmp_path / "MERA-evaluation" / "WEIRD", [mc_row(1, media={"image": {"bytes": png(), "path": None}})]
    )
    assert [t.name for t in importer(str(tmp_path))] == ["weird"]


@pytest.mark.parametrize(
    "rel",
    [
        "data/test-00000-of-00001.parquet",
        "data/test-00000-of-00002-3f1a.parquet",
        "data/test.parquet",
        "test/0000.parquet",
        "default/test/0000.parquet",
        "data/test/part-0.parquet",
    ],
)
def test_split_file_layouts(tmp_path: Path, rel: str) -> None:
    folder = tmp_path / "ruCLEVR"
    write_split(
        folder, [mc_row(i, media={"image": {"bytes": png(), "path": None}}) for i in range(2)], rel=rel
    )
    [task] = importer(str(folder))
    assert [s.id for s in task.iter_samples()] == ["0", "1"] and task.iter_demos is None  # no shots split


def test_hub_cache_snapshot_folder(tmp_path: Path) -> None:
    folder = tmp_path / "datasets--MERA-evaluation--WEIRD" / "snapshots" / "0f3c9a"
    write_split(folder, [mc_row(4, media={"image": {"bytes": png(), "path": None}})])
    [task] = importer(str(tmp_path))
    assert task.name == "weird" and [s.id for s in task.iter_samples()] == ["4"]


def test_missing_outputs_column_is_prediction_only(tmp_path: Path) -> None:
    row = mc_row(5, media={"image": {"bytes": png(), "path": None}})
    del row["outputs"]
    write_split(tmp_path / "LabTabVQA", [row])
    [task] = importer(str(tmp_path / "LabTabVQA"))
    [sample] = list(task.iter_samples())
    assert sample.targets == () and task.spec.metadata["answers_hidden"] is True


def _slu_row(sample_id: int, outputs: Any) -> dict[str, Any]:
    instruction = (
        'Аудио: <audio>\n{question}\nОтвет дай как {"intent": "...", "slots": [{"тип": '
        '"значение"}]}\n{annotation}'
    )
    inputs = {
        "audio": {"bytes": wav(), "path": "q.wav"},
        "question": "Что просит пользователь?",
        "annotation": "Интенты",
    }
    return {"instruction": instruction, "inputs": inputs, "outputs": outputs, "meta": {"id": sample_id}}


def test_ruslun_gold_as_json_string_or_arrow_struct(tmp_path: Path) -> None:
    gold = {"intent": "RateBook", "slots": [{"object_name": "доктор живаго"}, {"rating_value": "три"}]}
    write_split(tmp_path / "a" / "RuSLUn", [_slu_row(0, json.dumps(gold, ensure_ascii=False))])
    write_split(tmp_path / "b" / "RuSLUn", [_slu_row(0, gold)])  # Arrow fills every slot key, absent → null
    prediction = json.dumps(gold, ensure_ascii=False)
    for folder in ("a", "b"):
        [sample] = samples(tmp_path / folder / "RuSLUn")
        assert "null" not in sample.targets[0]
        assert ruslun_scores(prediction, sample.targets[0]) == {
            "em": 1.0,
            "intent_em": 1.0,
            "slot_f1": 1.0,
            "fs": 1.0,
        }
        assert (
            '{"intent": "...", "slots"' in sample.input and "Интенты" in sample.input
        )  # literal braces kept


def test_rutie_explicit_dialog_keys_order_turns(tmp_path: Path) -> None:
    def turn(dialog: int, question: int) -> dict[str, Any]:
        row = mc_row(1000 + 7 * question + dialog, media={"audio": {"bytes": wav(), "path": None}})
        row["instruction"] = "{context}" + row["instruction"]
        row["meta"] |= {"dialog_id": dialog, "question_id": question}
        return row

    write_split(tmp_path / "ruTiE-Audio", [turn(1, 0), turn(0, 1), turn(0, 0), turn(1, 1)])
    got = sorted(samples(tmp_path / "ruTiE-Audio"), key=lambda s: (s.chain or "", s.chain_index or 0))
    assert [(s.chain, s.chain_index, s.id) for s in got] == [
        ("dialog_0", 0, "1000"),
        ("dialog_0", 1, "1007"),
        ("dialog_1", 0, "1001"),
        ("dialog_1", 1, "1008"),
    ]


def test_rutie_without_meta_id_uses_the_packer_rule(tmp_path: Path) -> None:
    row = mc_row(0, media={"image": {"bytes": png(), "path": None}})
    row["meta"] = {"dialog_id": 2, "question_id": 3}
    write_split(tmp_path / "ruTiE-Image", [row])
    [sample] = samples(tmp_path / "ruTiE-Image")
    assert sample.id == str(3 + 500 * 2 + 11) and (sample.chain, sample.chain_index) == ("dialog_2", 3)


def test_rutie_id_that_is_no_number_names_the_field(tmp_path: Path) -> None:
    write_split(tmp_path / "ruTiE-Image", [mc_row("turn-a", media={"image": {"bytes": png(), "path": None}})])
    with pytest.raises(SourceError, match=r"sample 'turn-a'.*field 'meta.id'.*dialog_id"):
        samples(tmp_path / "ruTiE-Image")


def test_ruhhh_groups_from_group_id_or_same_media_and_question(tmp_path: Path) -> None:
    image_a, image_b = {"bytes": png("red"), "path": None}, {"bytes": png("blue"), "path": None}
    rows = [
        mc_row(i, media={"image": image_a if i < 3 else image_b}, question="один вопрос") for i in range(5)
    ]
    for row in rows:
        row["meta"]["categories"] = {"category": "helpful"}
    write_split(tmp_path / "ruHHH-Image", rows)
    groups = [s.metadata["mera_group"] for s in samples(tmp_path / "ruHHH-Image")]
    assert groups[:3] == [groups[0]] * 3 and groups[3] == groups[4] != groups[0]
    for i, row in enumerate(rows):
        row["meta"]["group_id"] = i % 2  # an explicit group id wins over media+question
    write_split(tmp_path / "g" / "ruHHH-Image", rows)
    assert [s.metadata["mera_group"] for s in samples(tmp_path / "g" / "ruHHH-Image")] == [
        "0",
        "1",
        "0",
        "1",
        "0",
    ]


def test_hf_datasets_written_parquet_reads(tmp_path: Path) -> None:
    """Parquet written by ``datasets`` itself with Image/Audio features and HF schema metadata."""
    import pyarrow as pa
    from datasets import Audio, Dataset, Features, Image, Value

    option = Value("string")
    features = Features(
        {
            "instruction": Value("string"),
            "inputs": {
                "audio_1": Audio(),
                "audio_2": Audio(),
                "image": Image(),
                "question": Value("string"),
                "option_a": option,
                "option_b": option,
                "option_c": option,
                "option_d": option,
            },
            "outputs": Value("string"),
            "meta": {"id": Value("int32"), "categories": {"task_type": Value("string")}},
        }
    )
    row = mc_row(
        11, media={"audio_1": {"bytes": wav(), "path": "a.wav"}, "audio_2": {"bytes": wav(), "path": None}}
    )
    row["inputs"]["image"] = None
    row["meta"]["categories"] = {"task_type": "audio_comparison"}
    dataset = Dataset(pa.Table.from_pylist([row])).cast(features)
    (tmp_path / "AQUARIA" / "data").mkdir(parents=True)
    dataset.to_parquet(str(tmp_path / "AQUARIA" / "data" / "test-00000-of-00001.parquet"), batch_size=8)
    [sample] = samples(tmp_path / "AQUARIA")
    assert sample.id == "11" and [m.name for m in sample.media] == ["audio_1", "audio_2"]
    assert sample.metadata["domain"] == "audio_comparison"


def test_group_and_domain_keys_at_either_nesting(tmp_path: Path) -> None:
    rows = [mc_row(i, media={"image": {"bytes": png(), "path": None}}) for i in range(3)]
    rows[0]["meta"] |= {"categories": {"category": "honest", "group_id": 7}}  # under categories
    rows[1]["meta"] |= {"category": "open", "group_id": 7}  # flat
    rows[2]["meta"] |= {"categories": {"category": "harmless"}, "group_id": 8}  # as the note's example
    write_split(tmp_path / "ruHHH-Image", rows)
    got = samples(tmp_path / "ruHHH-Image")
    assert [(s.metadata["mera_group"], s.metadata["domain"]) for s in got] == [
        ("7", "honest"),
        ("7", "open"),
        ("8", "harmless"),
    ]
