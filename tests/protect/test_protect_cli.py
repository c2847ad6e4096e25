"""`omnieval protect mark/detect` over a dataset folder: fixed interface, atomic output, clear errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from omnieval.cli.app import app
from tests.protect.conftest import textured_image

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_mark_then_detect_images(media_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "marked"
    code, text = _run(
        "protect",
        "mark",
        "--kind",
        "image-invisible",
        "--input",
        str(media_dir),
        "--output",
        str(out),
        "--key",
        "K1",
    )
    assert code == 0, text
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == sorted(
        p.relative_to(media_dir).as_posix() for p in media_dir.rglob("*") if p.is_file()
    )
    assert (out / "meta.jsonl").read_bytes() == (media_dir / "meta.jsonl").read_bytes()
    assert (out / "audio" / "q1.wav").read_bytes() == (media_dir / "audio" / "q1.wav").read_bytes()
    code, text = _run(
        "protect", "detect", "--kind", "image-invisible", "--input", str(out), "--key", "K1", "--json"
    )
    report = json.loads(text)
    assert code == 0 and report["n"] == 2 and report["detected"] == 2
    assert set(report) == {"n", "detected", "files"}  # the fixed interface, nothing more
    assert all(set(f) == {"path", "detected", "confidence"} for f in report["files"])
    assert {f["path"] for f in report["files"]} == {"images/a.png", "images/val/b.jpg"}
    assert all(0.0 <= f["confidence"] <= 1.0 for f in report["files"])
    clean = json.loads(
        _run(
            "protect",
            "detect",
            "--kind",
            "image-invisible",
            "--input",
            str(media_dir),
            "--key",
            "K1",
            "--json",
        )[1]
    )
    assert clean["detected"] == 0
    wrong = json.loads(
        _run("protect", "detect", "--kind", "image-invisible", "--input", str(out), "--key", "K2", "--json")[
            1
        ]
    )
    assert wrong["detected"] == 0
    assert all(
        f["confidence"] < 0.5 for f in wrong["files"] + clean["files"]
    )  # detected <=> confidence > 0.5
    assert all(f["confidence"] > 0.5 for f in report["files"])


def test_mark_then_detect_audio(media_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "marked"
    assert (
        _run(
            "protect",
            "mark",
            "--kind",
            "audio",
            "--input",
            str(media_dir),
            "--output",
            str(out),
            "--key",
            "a",
        )[0]
        == 0
    )
    report = json.loads(
        _run("protect", "detect", "--kind", "audio", "--input", str(out), "--key", "a", "--json")[1]
    )
    assert (
        report["n"] == 1
        and report["files"][0]["detected"] is True
        and report["files"][0]["path"] == "audio/q1.wav"
    )
    assert set(report) == {"n", "detected", "files"} and set(report["files"][0]) == {
        "path",
        "detected",
        "confidence",
    }
    wrong = json.loads(
        _run("protect", "detect", "--kind", "audio", "--input", str(out), "--key", "b", "--json")[1]
    )
    assert wrong["detected"] == 0 and wrong["files"][0]["confidence"] < 0.5


@pytest.mark.parametrize(("setting", "low", "high"), [(None, 30.0, 34.0), ("24", 22.0, 26.0)])
def test_detect_with_reference_reports_the_measured_snr(
    media_dir: Path, tmp_path: Path, setting: str | None, low: float, high: float
) -> None:
    out = tmp_path / "marked"
    level = ["--snr-db", setting] if setting else []  # None: the default strength
    assert (
        _run(
            "protect",
            "mark",
            "--kind",
            "audio",
            "--input",
            str(media_dir),
            "--output",
            str(out),
            "--key",
            "a",
            *level,
        )[0]
        == 0
    )
    code, text = _run(
        "protect",
        "detect",
        "--kind",
        "audio",
        "--input",
        str(out),
        "--key",
        "a",
        "--reference",
        str(media_dir),
        "--json",
    )
    report = json.loads(text)
    assert code == 0 and set(report) == {"n", "detected", "files"}
    assert set(report["files"][0]) == {"path", "detected", "confidence", "snr_db"}
    assert low < report["files"][0]["snr_db"] < high and report["files"][0]["detected"] is True
    (media_dir / "audio" / "q1.wav").rename(media_dir / "audio" / "other.wav")
    code, text = _run(
        "protect",
        "detect",
        "--kind",
        "audio",
        "--input",
        str(out),
        "--key",
        "a",
        "--reference",
        str(media_dir),
    )
    assert code != 0 and "no original audio/q1.wav" in text


def test_corrupt_media_fails_naming_the_file_and_leaves_no_output(media_dir: Path, tmp_path: Path) -> None:
    (media_dir / "images" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    out = tmp_path / "marked"
    code, text = _run(
        "protect",
        "mark",
        "--kind",
        "image-invisible",
        "--input",
        str(media_dir),
        "--output",
        str(out),
        "--key",
        "k",
    )
    assert code != 0 and "broken.png" in text
    assert not out.exists() and not list(tmp_path.glob(".marked.partial-*"))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--kind", "image-invisible"), "--key"),
        (("--kind", "image-visible"), "--text or --logo"),
        (("--kind", "sepia", "--key", "k"), "unknown --kind"),
    ],
)
def test_settings_errors_before_any_work(
    media_dir: Path, tmp_path: Path, args: tuple[str, ...], expected: str
) -> None:
    code, text = _run("protect", "mark", *args, "--input", str(media_dir), "--output", str(tmp_path / "o"))
    assert code != 0 and expected in text
    assert not (tmp_path / "o").exists()


def test_parquet_image_column_marked_and_other_columns_kept(tmp_path: Path) -> None:
    src = tmp_path / "ds"
    src.mkdir()
    cells = []
    for seed in (1, 2):
        buf = io.BytesIO()
        textured_image(seed, (320, 240)).save(buf, "PNG")
        cells.append({"bytes": buf.getvalue(), "path": f"{seed}.png"})
    pq.write_table(
        pa.table({"id": ["a", "b"], "image": cells, "question": ["Сколько?", "Где?"]}), src / "test.parquet"
    )
    out = tmp_path / "out"
    code, text = _run(
        "protect",
        "mark",
        "--kind",
        "image-invisible",
        "--input",
        str(src),
        "--output",
        str(out),
        "--key",
        "p",
    )
    assert code == 0 and json.loads(text)["parquet_cells"] == 2
    table = pq.read_table(out / "test.parquet").to_pylist()
    assert [r["id"] for r in table] == ["a", "b"] and [r["question"] for r in table] == ["Сколько?", "Где?"]
    assert [r["image"]["path"] for r in table] == ["1.png", "2.png"]
    from PIL import Image

    from omnieval.protect import detect_image

    assert all(detect_image(Image.open(io.BytesIO(r["image"]["bytes"])), key="p").detected for r in table)
    pq.write_table(pa.table({"id": ["a"], "text": ["no media"]}), src / "test.parquet")
    code, text = _run(
        "protect",
        "mark",
        "--kind",
        "image-invisible",
        "--input",
        str(src),
        "--output",
        str(tmp_path / "o2"),
        "--key",
        "p",
    )
    assert code != 0 and "test.parquet" in text and "no image column" in text


def test_hf_save_to_disk_dataset_images_marked(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")

    from omnieval.protect import detect_image

    pictures = [textured_image(seed, (256, 192)) for seed in (4, 5)]
    ds = datasets.Dataset.from_dict(
        {"id": ["x", "y"], "image": pictures},
        features=datasets.Features({"id": datasets.Value("string"), "image": datasets.Image()}),
    )
    ds.save_to_disk(str(tmp_path / "hf"))
    code, text = _run(
        "protect",
        "mark",
        "--kind",
        "image-invisible",
        "--input",
        str(tmp_path / "hf"),
        "--output",
        str(tmp_path / "hf_marked"),
        "--key",
        "h",
    )
    assert code == 0 and json.loads(text)["parquet_cells"] == 2, text
    back = datasets.load_from_disk(str(tmp_path / "hf_marked"))
    assert back["id"] == ["x", "y"] and back.features["image"] == datasets.Image()
    for row in back:
        assert detect_image(row["image"], key="h").detected


def test_unsupported_media_format_is_refused_not_copied_unmarked(media_dir: Path, tmp_path: Path) -> None:
    (media_dir / "audio" / "extra.mp3").write_bytes(b"ID3 not decoded")
    code, text = _run(
        "protect",
        "mark",
        "--kind",
        "audio",
        "--input",
        str(media_dir),
        "--output",
        str(tmp_path / "o"),
        "--key",
        "k",
    )
    assert code != 0 and "extra.mp3" in text and "unsupported audio format" in text
    assert not (tmp_path / "o").exists()


def test_detect_refuses_unsupported_files_instead_of_skipping_them(media_dir: Path) -> None:
    (media_dir / "images" / "val" / "anim.gif").write_bytes(b"GIF89a")
    code, text = _run(
        "protect", "detect", "--kind", "image-invisible", "--input", str(media_dir), "--key", "k", "--json"
    )
    assert code != 0 and "anim.gif" in text and "unsupported image format" in text


def _hf_table(image: bytes, audio: bytes) -> pa.Table:
    """A table laid out as HF ``datasets`` writes one with Image and Audio features (both ``{bytes,
    path}``)."""
    features = {
        "id": {"dtype": "string", "_type": "Value"},
        "image": {"_type": "Image"},
        "audio": {"_type": "Audio"},
    }
    table = pa.table(
        {
            "id": ["a"],
            "image": [{"bytes": image, "path": "a.png"}],
            "audio": [{"bytes": audio, "path": "q.wav"}],
        }
    )
    return table.replace_schema_metadata({"huggingface": json.dumps({"info": {"features": features}})})


def test_table_with_image_and_audio_columns_marks_only_the_asked_kind(
    media_dir: Path, tmp_path: Path
) -> None:
    src = tmp_path / "ds"
    src.mkdir()
    image, audio = (
        (media_dir / "images" / "a.png").read_bytes(),
        (media_dir / "audio" / "q1.wav").read_bytes(),
    )
    pq.write_table(_hf_table(image, audio), src / "test.parquet")
    for kind, column, other in (("image-invisible", "image", "audio"), ("audio", "audio", "image")):
        out = tmp_path / kind
        code, text = _run(
            "protect", "mark", "--kind", kind, "--input", str(src), "--output", str(out), "--key", "t"
        )
        assert code == 0 and json.loads(text)["parquet_cells"] == 1, text
        table = pq.read_table(out / "test.parquet")
        row = table.to_pylist()[0]
        assert row[other]["bytes"] == (
            audio if other == "audio" else image
        )  # the other media column untouched
        assert row[column]["bytes"] != (image if column == "image" else audio)
        assert (
            table.schema.metadata[b"huggingface"] == _hf_table(image, audio).schema.metadata[b"huggingface"]
        )
        code, text = _run("protect", "detect", "--kind", kind, "--input", str(out), "--key", "t", "--json")
        report = json.loads(text)
        assert code == 0 and report["n"] == 1 and report["detected"] == 1, text
        assert report["files"][0]["path"] == f"test.parquet:{column}[0]"
        clean = json.loads(
            _run("protect", "detect", "--kind", kind, "--input", str(src), "--key", "t", "--json")[1]
        )
        assert clean["n"] == 1 and clean["detected"] == 0
    import soundfile

    marked_audio = pq.read_table(tmp_path / "audio" / "test.parquet").to_pylist()[0]["audio"]["bytes"]
    assert soundfile.info(io.BytesIO(marked_audio)).format == "WAV"  # written back in its own format


def test_corrupt_table_cell_is_named_and_leaves_no_output(media_dir: Path, tmp_path: Path) -> None:
    src = tmp_path / "ds"
    src.mkdir()
    pq.write_table(
        _hf_table(b"\x89PNG broken", (media_dir / "audio" / "q1.wav").read_bytes()), src / "train.parquet"
    )
    code, text = _run(
        "protect",
        "mark",
        "--kind",
        "image-invisible",
        "--input",
        str(src),
        "--output",
        str(tmp_path / "o"),
        "--key",
        "k",
    )
    assert code != 0 and "train.parquet" in text and "row 0" in text and "'image'" in text
    assert not (tmp_path / "o").exists() and not list(tmp_path.glob(".o.partial-*"))


def test_visible_logo_position_scale_and_opacity(tmp_path: Path) -> None:
    from PIL import Image

    src, logo = tmp_path / "in", tmp_path / "logo.png"
    (src / "sub").mkdir(parents=True)
    Image.new("RGB", (400, 200), (0, 0, 200)).save(src / "sub" / "x.png")
    Image.new("RGBA", (100, 50), (255, 0, 0, 255)).save(logo)
    code, text = _run(
        "protect",
        "mark",
        "--kind",
        "image-visible",
        "--input",
        str(src),
        "--output",
        str(tmp_path / "o"),
        "--logo",
        str(logo),
        "--position",
        "top-left",
        "--scale",
        "0.5",
        "--opacity",
        "0.5",
    )
    assert code == 0, text
    out = np.asarray(Image.open(tmp_path / "o" / "sub" / "x.png").convert("RGB")).astype(int)
    changed = np.argwhere(np.any(out != [0, 0, 200], axis=-1))
    assert changed[:, 1].max() - changed[:, 1].min() + 1 == 200  # --scale 0.5 of a 400 px width
    assert changed[:, 0].max() - changed[:, 0].min() + 1 == 100  # aspect ratio kept
    assert changed[:, 0].min() < 10 and changed[:, 1].min() < 10  # top-left, inside the small margin
    y, x = changed[len(changed) // 2]
    assert np.abs(out[y, x] - [128, 0, 100]).max() <= 2  # half-opaque red over blue
    logo.write_bytes(b"not a png")
    code, text = _run(
        "protect",
        "mark",
        "--kind",
        "image-visible",
        "--input",
        str(src),
        "--output",
        str(tmp_path / "o2"),
        "--logo",
        str(logo),
    )
    assert code != 0 and "logo.png" in text and not (tmp_path / "o2").exists()
