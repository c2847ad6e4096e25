"""A session cache for the speech tests: the packaged Whisper base is joined once, transcripts shared."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.conftest import scripted

__all__ = ["scripted", "speech_cache"]


@pytest.fixture(scope="session")
def speech_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("speech-cache")
