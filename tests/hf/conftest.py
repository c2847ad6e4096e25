"""Tiny models shared by the hf backend tests (built once per session, in tmp)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import tiny_models


@pytest.fixture(scope="session")
def llama_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_models.build_llama(tmp_path_factory.mktemp("llama"))


@pytest.fixture(scope="session")
def llava_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_models.build_llava(tmp_path_factory.mktemp("llava"))


@pytest.fixture(scope="session")
def qwen2_audio_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_models.build_qwen2_audio(tmp_path_factory.mktemp("qwen2audio"))
