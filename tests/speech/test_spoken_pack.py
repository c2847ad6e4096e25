"""``omnieval pack --format spoken``: a run's spoken answers packed with their audio files, each checked
against its record's hash; a text run is refused with the reason; the archive validates."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from omnieval.backends import tts
from omnieval.cli import app
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.types import AudioAnswer, Response
from tests.engine.conftest import ScriptedBackend, read_samples
from tests.speech.test_spoken_run import _task, _wav


def _pack(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(app, ["pack", *args])
    return done.exit_code, done.output


def test_spoken_answers_pack_with_their_audio(
    scripted: type[ScriptedBackend], speech_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMNIEVAL_CACHE", str(speech_cache))
    said = {
        "a": tts.synthesize("Кошка спит на окне.", engine="festival", language="ru"),
        "b": _wav(np.zeros(8000)),
    }
    scripted.answer = staticmethod(lambda r: Response(audio=AudioAnswer.of(said[r.sample_id])))
    task = _task(tmp_path, {"a": "Кошка спит на окне.", "b": "Кот спит."})
    run = tmp_path / "run"
    evaluate_config(RunConfig(tasks=(str(task),), model="scripted/m", output=run, quiet=True))
    rows = {r["sample_id"]: r for r in read_samples(run)}

    archive = tmp_path / "spoken.zip"
    code, output = _pack(str(run), "--format", "spoken", "-o", str(archive))
    assert code == 0, output
    with zipfile.ZipFile(archive) as zf:
        lines = {x["sample_id"]: x for x in map(json.loads, zf.read("say.jsonl").decode().splitlines())}
        for sid, row in rows.items():  # the heard one and the silent one (an error, its file kept)
            line = lines[sid]
            assert line["response"] == row["response"] and line["problem"] == row["audio"]["problem"]
            assert line["audio"] == row["audio"]["path"] and zf.read(line["audio"]) == said[sid]
            assert hashlib.sha256(zf.read(line["audio"])).hexdigest() == line["sha256"]
    assert lines["a"]["response"] and lines["b"]["problem"] == "silent"
    report = CliRunner().invoke(app, ["validate-submission", str(archive), "--format", "spoken"])
    assert report.exit_code == 0 and json.loads(report.output)["tasks"]["say"]["n"] == 2, report.output

    # a file changed since the run is named, not packed
    (run / rows["a"]["audio"]["path"]).write_bytes(said["b"])
    code, output = _pack(str(run), "--format", "spoken", "-o", str(tmp_path / "bad.zip"))
    assert code != 0 and "say/a" in output and "changed since the run" in output

    # an archive missing a file does not validate
    with zipfile.ZipFile(archive) as zf, zipfile.ZipFile(tmp_path / "cut.zip", "w") as cut:
        for name in zf.namelist():
            if name != rows["b"]["audio"]["path"]:
                cut.writestr(name, zf.read(name))
    report = CliRunner().invoke(app, ["validate-submission", str(tmp_path / "cut.zip"), "--format", "spoken"])
    assert report.exit_code != 0 and "is not in the archive" in report.output


def test_a_text_run_is_refused_with_the_reason(scripted: type[ScriptedBackend], tmp_path: Path) -> None:
    scripted.answer = staticmethod(lambda r: "Кот спит.")
    run = tmp_path / "run"
    evaluate_config(
        RunConfig(
            tasks=(str(_task(tmp_path, {"a": "Кот спит."})),), model="scripted/m", output=run, quiet=True
        )
    )
    code, output = _pack(str(run), "--format", "spoken", "-o", str(tmp_path / "x.zip"))
    assert code != 0 and "no spoken answers" in output and not (tmp_path / "x.zip").exists()
