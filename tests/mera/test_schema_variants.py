"""Row-level schema variants a real MERA dataset copy may use; each test builds its own parquet."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from omnieval.benchmarks.mera.mini_media import make_video
from omnieval.errors import SourceError
from omnieval.metrics import metrics
from omnieval.types import ScoringInput
from tests.mera.variant_kit import importer, mc_row, png, samples, wav, write_split


def _em(response: str, targets: tuple[str, ...], **options: bool) -> float:
    inp = ScoringInput(response=response, prediction=response, targets=targets)
    return float(metrics.get("mera_em").fn(inp, **options))  # type: ignore[arg-type]


def test_meta_id_int_string_and_float_upcast(tmp_path: Path) -> None:
    image = {"bytes": png(), "path": "x.png"}
    write_split(tmp_path / "WEIRD", [mc_row(7, media={"image": image})])
    write_split(tmp_path / "w2" / "WEIRD", [mc_row("007", media={"image": image})])
    write_split(tmp_path / "w3" / "WEIRD", [mc_row(7.0, media={"image": image})])
    assert [s.id for s in samples(tmp_path / "WEIRD")] == ["7"]
    assert [s.id for s in samples(tmp_path / "w2" / "WEIRD")] == ["007"]  # str(meta.id), kept exactly
    assert [s.id for s in samples(tmp_path / "w3" / "WEIRD")] == ["7"]  # pandas float upcast of int32


def test_options_as_one_list_fill_option_placeholders(tmp_path: Path) -> None:
    row = mc_row(1, media={"image": {"bytes": png(), "path": None}})
    for c in "abcd":
        del row["inputs"][f"option_{c}"]
    row["inputs"]["options"] = ["кошка", "собака", "рыба", "птица"]
    write_split(tmp_path / "SchoolScienceVQA", [row | {"inputs": row["inputs"] | {"context": "к"}}])
    [sample] = samples(tmp_path / "SchoolScienceVQA")
    assert sample.choices == ("кошка", "собака", "рыба", "птица")
    assert "C. рыба" in sample.input and "{option_a}" not in sample.input


def test_decoded_audio_array_becomes_wav_bytes(tmp_path: Path) -> None:
    array = np.sin(np.linspace(0, 20, 800)).astype(np.float32) * 0.5
    audio = {"array": array.tolist(), "sampling_rate": 8000, "path": None}
    write_split(tmp_path / "ruEnvAQA", [mc_row(3, media={"audio": audio})])
    [sample] = samples(tmp_path / "ruEnvAQA")
    [ref] = sample.media
    assert ref.kind == "audio" and ref.data is not None
    decoded, rate = sf.read(io.BytesIO(ref.data), dtype="float32")
    assert rate == 8000 and len(decoded) == 800
    assert np.allclose(decoded, array, atol=1e-3)


def test_two_audio_inputs_in_placeholder_order(tmp_path: Path) -> None:
    media = {
        "audio_1": {"bytes": wav(1600), "path": "a.wav"},
        "audio_2": {"bytes": wav(800), "path": "b.wav"},
    }
    write_split(tmp_path / "AQUARIA", [mc_row(0, media=media)])
    [sample] = samples(tmp_path / "AQUARIA")
    assert [(m.name, m.kind) for m in sample.media] == [("audio_1", "audio"), ("audio_2", "audio")]
    assert sample.input.startswith("<audio_1> <audio_2>")


def test_video_as_relative_path_foreign_absolute_path_and_bytes(tmp_path: Path) -> None:
    folder = tmp_path / "CommonVideoQA"
    make_video(folder / "videos" / "v0.mp4", 1)
    make_video(folder / "samples" / "v1.mp4", 2)
    rows = [
        mc_row(0, media={"video": "videos/v0.mp4"}),
        mc_row(1, media={"video": "/home/someone/mera/samples/v1.mp4"}),  # path from the uploader's disk
    ]
    write_split(folder, rows)
    got = samples(folder)
    assert [Path(s.media[0].path or "").name for s in got] == ["v0.mp4", "v1.mp4"]
    raw = (folder / "videos" / "v0.mp4").read_bytes()
    write_split(tmp_path / "b" / "RealVideoQA", [mc_row(5, media={"video": raw})])  # a binary column
    [sample] = samples(tmp_path / "b" / "RealVideoQA")
    assert sample.media[0].data == raw and sample.media[0].kind == "video"


def test_missing_video_names_file_sample_and_field(tmp_path: Path) -> None:
    write_split(tmp_path / "ruHHH-Video", [mc_row(4, media={"video": "samples/gone.mp4"})])
    with pytest.raises(SourceError, match=r"test-00000.*sample '4'.*field 'inputs.video'.*gone.mp4"):
        samples(tmp_path / "ruHHH-Video")


def test_media_of_a_wrong_type_is_a_clear_error(tmp_path: Path) -> None:
    write_split(tmp_path / "ruCLEVR", [mc_row(9, media={"image": 12345})])
    with pytest.raises(SourceError, match=r"sample '9'.*field 'inputs.image'.*got int"):
        samples(tmp_path / "ruCLEVR")


def test_extra_unknown_columns_and_json_string_columns(tmp_path: Path) -> None:
    row = mc_row(2, media={"image": {"bytes": png(), "path": "x.png"}}, source_note="примечание")
    row |= {"__index_level_0__": 2, "split": "test", "meta": {"id": 2, "image": {"source": "photo"}}}
    json_row = mc_row(3, media={})
    json_row["instruction"] = json_row["instruction"].lstrip() + " <image>"
    json_row["inputs"] = json.dumps(json_row["inputs"] | {"image": "samples/i.png"}, ensure_ascii=False)
    json_row["meta"] = json.dumps({"id": 3})
    (tmp_path / "RealVQA" / "samples").mkdir(parents=True)
    (tmp_path / "RealVQA" / "samples" / "i.png").write_bytes(png("blue"))
    write_split(tmp_path / "RealVQA", [row])
    write_split(tmp_path / "RealVQA", [json_row], split="shots")
    [sample] = samples(tmp_path / "RealVQA")
    assert sample.id == "2" and sample.fields["source_note"] == "примечание"
    [task] = importer(str(tmp_path / "RealVQA"))
    assert task.iter_demos is not None
    [demo] = list(task.iter_demos())
    assert demo.id == "3" and demo.media[0].path and demo.media[0].path.endswith("i.png")


def test_null_options_of_a_binary_question_format_as_empty(tmp_path: Path) -> None:
    row = mc_row(1, media={"audio": {"bytes": wav(), "path": None}})
    row["inputs"] |= {"option_c": None, "option_d": None}
    write_split(tmp_path / "ruEnvAQA", [row])
    [sample] = samples(tmp_path / "ruEnvAQA")
    assert sample.choices == ("вариант a", "вариант b") and "None" not in sample.input


@pytest.mark.parametrize(
    ("gold", "answer", "em", "parity"),
    [
        ("Б", "B", 1.0, 0.0),  # Cyrillic gold, Latin answer: same position (MERA itself: no match)
        ("B", "Б", 1.0, 0.0),
        ("В", "C", 1.0, 0.0),  # Cyrillic В is the THIRD letter
        ("В", "B", 0.0, 0.0),  # ... not the look-alike Latin B
        ("C", "ОТВЕТ: В", 1.0, 0.0),  # MERA splits on the upper-case ОТВЕТ only
        (" b ", "B", 1.0, 1.0),  # stray spaces and lowercase
        ("г.", "D", 1.0, 0.0),
        ("A", "Б", 0.0, 0.0),
    ],
)
def test_option_letters_in_either_alphabet(
    tmp_path: Path, gold: str, answer: str, em: float, parity: float
) -> None:
    row = mc_row(0, media={"image": {"bytes": png(), "path": None}}, outputs=gold)
    row["instruction"] = "{context}" + row["instruction"]
    write_split(tmp_path / "ruTiE-Image", [row])
    [sample] = samples(tmp_path / "ruTiE-Image")
    assert sample.targets[0] == gold
    assert _em(answer, sample.targets, letter_twins=True) == em
    assert _em(answer, sample.targets) == parity


def test_free_text_golds_are_not_rewritten(tmp_path: Path) -> None:
    row = mc_row(0, media={"image": {"bytes": png(), "path": None}}, outputs="в пятницу")
    write_split(tmp_path / "RealVQA", [row])
    [sample] = samples(tmp_path / "RealVQA")
    assert sample.targets == ("в пятницу",)


def test_text_that_mentions_a_file_name_stays_text(tmp_path: Path) -> None:
    row = mc_row(
        0, media={"image": {"bytes": png(), "path": None}}, hint="фото.png", note="см. файл фото.png"
    )
    row["inputs"]["question"] = "scan.png"  # a catalogue text field is never media
    write_split(tmp_path / "WEIRD", [row])
    [sample] = samples(tmp_path / "WEIRD")
    assert [m.name for m in sample.media] == ["image"]
    assert sample.fields["note"] == "см. файл фото.png" and sample.fields["question"] == "scan.png"


def test_unlisted_video_path_under_a_media_key_is_media(tmp_path: Path) -> None:
    folder = tmp_path / "RealVideoQA"
    make_video(folder / "samples" / "a.mp4", 1)
    make_video(folder / "samples" / "b.mp4", 2)
    row = mc_row(0, media={"video": "samples/a.mp4", "video_2": "samples/b.mp4"})
    write_split(folder, [row])
    [sample] = samples(folder)
    assert [(m.name, m.kind) for m in sample.media] == [("video", "video"), ("video_2", "video")]


def test_string_ids_with_leading_zeros_validate_after_packing(tmp_path: Path) -> None:
    import zipfile

    from omnieval.submission.base import validators

    write_split(tmp_path / "root" / "WEIRD", [mc_row("007", media={"image": {"bytes": png(), "path": None}})])
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("WEIRD.json", json.dumps({"data": {"test": [{"outputs": "A", "meta": {"id": 7}}]}}))
    report = validators.get("mera")(archive, data=str(tmp_path / "root"))
    assert report["tasks"]["weird"]["errors"] == [] and report["tasks"]["weird"]["missing_ids"] == []
