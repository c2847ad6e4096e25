"""Shared pieces of the cascade tests: spoken clips (Festival Russian, espeak-ng English) and a task over
them.

These tests need the real components (extra ``cascade``, Debian tesseract-ocr, festival, festvox-ru,
espeak-ng); ``make test`` installs them, so they fail rather than skip when something is missing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from omnieval.benchmarks.demo.media_data import speak, speak_festival
from tests.engine.conftest import ScriptedBackend, scripted, write_jsonl

__all__ = ["CLIPS", "cascade_cache", "norm", "scripted", "speech_task"]

CLIPS = [
    ("ru-0", "ru", "Сегодня в Москве идёт снег, и дети катаются на санках."),
    ("ru-1", "ru", "Кошка спит на тёплом окне."),
    ("en-0", "en", "The weather is cold and the sky is grey."),
    ("en-1", "en", "My brother reads a book in the garden."),
]
"""Russian spoken by Festival (festvox-ru), English by espeak-ng."""


def norm(text: str) -> str:
    """Lower case, ё → е, punctuation removed: what CER is measured on."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower().replace("ё", "е")).split())


@pytest.fixture(scope="session")
def cascade_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the session: the packaged Whisper is joined once, recognitions are shared by design."""
    return tmp_path_factory.mktemp("cascade-cache")


@pytest.fixture(scope="session")
def speech_task(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("speech")
    rows = []
    for sid, lang, text in CLIPS:
        wav = folder / f"{sid}.wav"
        assert speak_festival(text, out=wav) if lang == "ru" else speak(text, lang=lang, out=wav), (
            "TTS missing"
        )
        rows.append({"id": sid, "audio": str(wav), "answer": text, "lang": lang})
    write_jsonl(folder / "speech.jsonl", rows)
    (folder / "speech.yaml").write_text(
        "name: speech\nmodalities: [audio]\nlanguage: ru\n"
        "source: {type: jsonl, path: speech.jsonl, fields: {input: null, targets: answer, "
        "media: [{field: audio, kind: audio}], metadata: [lang]}}\n"
        'prompt: {template: "<audio>\\nЧто сказано?"}\nmetrics: [exact_match]\n',
        encoding="utf-8",
    )
    return folder / "speech.yaml"


@pytest.fixture
def echo(scripted: type[ScriptedBackend]) -> type[ScriptedBackend]:
    """The text model answers with the prompt it was given, so the test sees what the cascade sent."""
    scripted.answer = staticmethod(lambda r: r.messages[-1].text)
    return scripted
