"""Generated sets: manifest shape, independent ground truth, audio rules measured on the WAVs, determinism."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile

from omnieval.benchmarks.art.spec import TASKS
from omnieval.errors import SourceError
from tests.art.conftest import needs_espeak
from tests.art.reference import truth

pytestmark = needs_espeak


def _read(folder: Path, rel: str) -> np.ndarray:
    data, rate = soundfile.read(str(folder / rel), dtype="float64")
    assert rate == 16000 and data.ndim == 1
    return data


def _db(x: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(x**2)) + 1e-12))


def _cut(audio: np.ndarray, seg: dict[str, Any], lo: float = 0.0, hi: float | None = None) -> np.ndarray:
    start = round(seg["start_s"] * 16000)
    end = start + round(seg["dur_s"] * 16000)
    return audio[start + round(lo * 16000) : end if hi is None else start + round(hi * 16000)]


def test_manifest_has_the_fixed_fields_and_covers_all_templates(
    tiny_set: Path, tiny_rows: list[dict[str, Any]]
) -> None:
    assert len(tiny_rows) == 110
    for row in tiny_rows:
        assert {"id", "task", "template", "question", "answer", "audio"} <= set(row)
        assert row["answer"] in ("Yes", "No") and (tiny_set / row["audio"]).is_file()
    assert {r["task"] for r in tiny_rows} == set(TASKS)
    per_template = Counter((r["template"], r["answer"]) for r in tiny_rows)
    assert len({t for t, _ in per_template}) == 55
    assert all(per_template[(t, "Yes")] == per_template[(t, "No")] == 1 for t, _ in per_template)
    summary = json.loads((tiny_set / "generation.json").read_text(encoding="utf-8"))
    assert summary["n"] == 110 and summary["counts"]["SR"]["Yes"] == 15


def test_independent_evaluator_agrees_on_every_instance(tiny_rows: list[dict[str, Any]]) -> None:
    wrong = [(r["id"], r["template"], r["answer"]) for r in tiny_rows if truth(r) != r["answer"]]
    assert not wrong


def test_levels_durations_and_gaps_measured_on_the_wavs(
    tiny_set: Path, tiny_rows: list[dict[str, Any]]
) -> None:
    expected = {"louder": -14.0, "quieter": -26.0}
    cut = 0
    for row in tiny_rows:
        audio = _read(tiny_set, row["audio"])
        assert abs(audio.size / 16000 - row["duration_s"]) < 1e-3
        segs = row["segments"]
        assert segs[0]["kind"] == "question" and abs(_db(_cut(audio, segs[0])) + 20) < 0.5
        for seg in segs:
            if seg["kind"] in ("sound", "tune"):
                clip = _cut(audio, seg)
                assert seg["dur_s"] <= 5.0
                target = expected.get(seg.get("transform") or "", -20.0)
                tolerance = 1.0 if seg.get("transform") in ("truncated", None) else 0.6
                assert abs(_db(clip) - target) < tolerance, (row["id"], seg["asset"], seg.get("transform"))
                assert np.max(np.abs(clip[-16:])) < 0.02  # faded out: no click at the end
                if (
                    seg["truncated_to_5s"] and seg.get("transform") is None
                ):  # cut at 5 s with a 0.5 s fade-out
                    cut += 1
                    assert seg["dur_s"] == 5.0
                    assert _db(clip[-800:]) < _db(clip[-16000:-8000]) - 12
        for before, after in itertools.pairwise(segs):  # the gaps between recordings are silence
            gap = audio[
                round((before["start_s"] + before["dur_s"]) * 16000) + 2 : round(after["start_s"] * 16000) - 2
            ]
            assert gap.size > 0 and np.max(np.abs(gap)) == 0.0
    assert cut >= 1  # SR plays 6 s ambiences as sounds: some clips were cut


def test_background_sits_twenty_db_under_speech_with_fades(
    tiny_set: Path, tiny_rows: list[dict[str, Any]]
) -> None:
    checked = 0
    for row in (r for r in tiny_rows if r["task"] == "TTLR" and r["template"] != "TTLR_3"):
        audio = _read(tiny_set, row["audio"])
        seg = row["segments"][1]
        bg = seg["background"]
        assert bg["gain_db"] == -20 and bg["lead_s"] == 0.6
        lead_in = _cut(audio, seg, bg["fade_s"], bg["lead_s"])  # after the fade-in, before the speech starts
        # a 0.3 s window of a non-stationary ambience (waves, passing cars) is only near its -40 dBFS mean
        assert -46.0 < _db(lead_in) < -34.0
        assert _db(_cut(audio, seg, bg["lead_s"], seg["dur_s"] - bg["lead_s"])) - _db(lead_in) > 15.0
        first_ms = _cut(audio, seg, 0.0, 0.01)
        assert np.max(np.abs(first_ms)) < np.max(np.abs(lead_in))  # faded in
        checked += 1
    assert checked >= 4


def test_overlay_puts_a_stationary_background_exactly_twenty_db_under_the_speech_level() -> None:
    from omnieval.benchmarks.art.dsp import normalize, overlay

    rng = np.random.default_rng(0)
    speech = normalize(rng.standard_normal(16000 * 2))
    mixed, start_s = overlay(speech, rng.standard_normal(16000 * 3))
    lead = mixed[round(0.3 * 16000) : round(start_s * 16000)]
    assert start_s == 0.6 and mixed.size == speech.size + 2 * round(0.6 * 16000)
    assert abs(_db(lead) - (-40.0)) < 0.3
    assert abs(mixed[0]) < 1e-6 and abs(mixed[-1]) < 1e-6  # faded in and out


def test_transformations_change_what_they_say(tiny_set: Path) -> None:
    from omnieval.benchmarks.art.dsp import apply_transform
    from omnieval.benchmarks.art.synth import synthesize

    piano = synthesize("piano")

    def pitch(x: np.ndarray) -> float:
        spectrum = np.abs(np.fft.rfft(x * np.hanning(x.size)))
        return float(np.sum(np.fft.rfftfreq(x.size, 1 / 16000) * spectrum) / np.sum(spectrum))

    assert (
        pitch(apply_transform(piano, "higher"))
        > 1.15 * pitch(piano)
        > 1.15**2 * pitch(apply_transform(piano, "lower"))
    )
    assert apply_transform(piano, "slowed down").size == pytest.approx(piano.size * 1.5, rel=0.01)
    assert apply_transform(piano, "sped up").size == pytest.approx(piano.size / 1.5, rel=0.01)
    assert apply_transform(piano, "truncated").size == pytest.approx(piano.size / 2, rel=0.01)
    assert np.array_equal(apply_transform(piano, "reversed"), piano[::-1])


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_same_seed_gives_byte_identical_files_whatever_the_workers(tmp_path: Path) -> None:
    from omnieval.benchmarks.art.generator import generate_art

    options: dict[str, Any] = {"per_template": 1, "tasks": "ATD,TTLR,CRLI", "seed": 21}
    generate_art(tmp_path / "a", workers=1, **options)
    generate_art(tmp_path / "b", workers=2, **options)
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert len(a) == 14 + 2 and a == b
    generate_art(tmp_path / "c", workers=1, **{**options, "seed": 22})
    assert _files(tmp_path / "c")["manifest.jsonl"] != a["manifest.jsonl"]


def test_russian_edition_speaks_and_writes_russian_questions(tmp_path: Path) -> None:
    from omnieval.benchmarks.art.generator import generate_art

    manifest = generate_art(tmp_path / "ru", per_template=1, tasks="SR,STI", language="ru", seed=2, workers=1)
    rows = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 19
    for row in rows:
        assert row["language"] == "ru" and any("а" <= ch <= "я" for ch in row["question"].lower())
        assert "{" not in row["question"] and row["answer_text"] == {"Yes": "Да", "No": "Нет"}[row["answer"]]
        assert row["segments"][0]["voice"].startswith("ru+")


def test_user_assets_replace_synthetic_sounds_and_bad_files_fail_first(tmp_path: Path) -> None:
    from omnieval.benchmarks.art.generator import generate_art

    assets = tmp_path / "assets"
    assets.mkdir()
    t = np.arange(16000 * 2) / 16000
    soundfile.write(assets / "bell.wav", 0.3 * np.sin(2 * np.pi * 440 * t), 22050)
    manifest = generate_art(
        tmp_path / "out", per_template=1, tasks="AA", assets=str(assets), seed=1, workers=1
    )
    sources = [
        s["asset_source"]
        for r in map(json.loads, manifest.read_text().splitlines())
        for s in r["segments"]
        if s.get("asset") == "bell"
    ]
    assert sources and all(s["source"] == "file" and s["path"] == "bell.wav" for s in sources)
    (assets / "cat.wav").write_bytes(b"not audio at all")
    with pytest.raises(SourceError, match="cannot read asset file") as err:
        generate_art(tmp_path / "out2", per_template=1, tasks="AA", assets=str(assets), workers=1)
    assert "cat.wav" in str(err.value) and not (tmp_path / "out2").exists()
    (assets / "cat.wav").unlink()
    soundfile.write(assets / "kitten.wav", 0.3 * np.sin(2 * np.pi * 440 * t), 16000)
    with pytest.raises(SourceError, match="names no ART sound"):
        generate_art(tmp_path / "out3", per_template=1, tasks="AA", assets=str(assets), workers=1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"question_voice": "en-au+m3"}, "no language 'en-au'"),
        ({"question_voice": "en-us+nosuchvariant"}, "no voice variant 'nosuchvariant'"),
        ({"languages": "et,fi,xx"}, "unknown: \\['xx'\\]"),
        ({"scale": "huge"}, "scale must be one of"),
        ({"scale": "tiny", "n": 10}, "only one of"),
        ({"tasks": "AA,XYZ"}, "unknown task"),
        ({"language": "de"}, "unknown edition language"),
    ],
)
def test_bad_options_fail_before_anything_is_written(
    tmp_path: Path, options: dict[str, Any], message: str
) -> None:
    from omnieval.benchmarks.art.generator import generate_art

    with pytest.raises(SourceError, match=message):
        generate_art(tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()
