"""``compare`` pairs two voices per sample: every flipped sample plays both spoken answers beside their
transcripts. One run is Festival reading the reference; the other answers with Festival's recording of
another sentence for one sample (a second voice, kept fast: espeak-ng's Russian sends Whisper into slow
fallback decoding). The sentences are the Festival run test's, so in one session most clips are heard from
the shared transcript cache."""

from __future__ import annotations

import html
import os
from pathlib import Path

import pytest

from omnieval import api
from omnieval.backends import tts
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.types import AudioAnswer, Response
from tests.engine.conftest import ScriptedBackend, read_samples
from tests.speech.test_spoken_run import _task

SAID = {"a": "Кошка спит на окне.", "b": "В классе 25 учеников."}
OTHER = {"a": "Кошка спит на окне.", "b": "Кот спит."}  # sample b is answered with another sentence


def test_compare_pairs_two_voices_per_flipped_sample(
    scripted: type[ScriptedBackend], speech_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMNIEVAL_CACHE", str(speech_cache))
    task = _task(tmp_path, SAID)
    recorded = {k: tts.synthesize(v, engine="festival", language="ru") for k, v in OTHER.items()}
    scripted.answer = staticmethod(lambda r: Response(audio=AudioAnswer.of(recorded[r.sample_id])))
    runs = {"festival": tmp_path / "festival", "other": tmp_path / "other"}
    for model, run in zip(("tts/festival", "scripted/m"), runs.values(), strict=True):
        evaluate_config(RunConfig(tasks=(str(task),), model=model, output=run, quiet=True))
    rows = {voice: {r["sample_id"]: r for r in read_samples(run)} for voice, run in runs.items()}

    out = tmp_path / "cmp"
    comparison = api.compare(*runs.values(), output=out)
    (block,) = comparison.flips.values()
    assert [f.sample_id for f in block.samples] == ["b"]  # the same recording is no flip, another one is
    page = (out / "compare.html").read_text(encoding="utf-8")
    for voice, run in runs.items():
        row = rows[voice]["b"]
        source = os.path.relpath(run / row["audio"]["path"], out).replace(os.sep, "/")
        assert (out / source).is_file()
        assert f'<audio controls preload="none" src="{source}">' in page, voice
        assert row["response"] and html.escape(row["response"][:240]) in page, voice  # its transcript
    assert rows["festival"]["b"]["response"] != rows["other"]["b"]["response"]
    unchanged = os.path.relpath(runs["festival"] / rows["festival"]["a"]["audio"]["path"], out)
    assert f'src="{unchanged}"' not in page  # only flipped samples are paired
