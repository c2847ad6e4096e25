"""``hf/PATH`` must exist locally; the Hub only through an explicit ``hf/hub:ORG/NAME``, never offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.backends import BackendOptions, create_backend
from omnieval.backends.hf.loading import resolve_source
from omnieval.cli.app import app
from omnieval.errors import ConfigError


def test_a_missing_local_path_is_an_error_not_a_hub_id(tmp_path: Path) -> None:
    missing = tmp_path / "Qwen2-VL-2B"  # looks like a hub name's tail; must not be looked up anywhere
    with pytest.raises(ConfigError, match="no such local model folder or file") as info:
        create_backend(f"hf/{missing}", options=BackendOptions())
    assert str(missing) in str(info.value) and "hf/hub:ORG/NAME" in str(info.value)
    with pytest.raises(ConfigError, match="no such local model folder or file"):
        resolve_source("Qwen/Qwen2-VL-2B-Instruct", options=BackendOptions())  # a bare hub id is not local


def test_the_run_command_stops_before_any_work(tmp_path: Path) -> None:
    task = tmp_path / "t.jsonl"
    task.write_text('{"id": "1", "question": "q", "answer": "a"}\n', encoding="utf-8")
    result = CliRunner().invoke(
        app, ["run", "-t", f"jsonl:{task}", "-m", "hf/./no-such-model", "-o", str(tmp_path / "o")]
    )
    assert result.exit_code != 0
    assert "no such local model folder or file" in result.output
    assert not (tmp_path / "o" / "samples.jsonl").exists()


def test_explicit_hub_spelling_is_refused_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match="HF_HUB_OFFLINE is set") as info:
        create_backend("hf/hub:google/gemma-3-270m", options=BackendOptions())
    assert "google/gemma-3-270m" in str(info.value)


def test_explicit_hub_spelling_resolves_to_a_hub_source_without_fetching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    src = resolve_source("hub:google/gemma-3-270m", options=BackendOptions())
    assert (src.path, src.hub) == ("google/gemma-3-270m", True)
    with pytest.raises(ConfigError, match="hf/hub:ORG/NAME"):
        resolve_source("hub:../x/y/z", options=BackendOptions())


def test_an_existing_folder_is_local(tmp_path: Path) -> None:
    src = resolve_source(str(tmp_path), options=BackendOptions())
    assert (src.path, src.hub) == (str(tmp_path), False)


def test_classifier_backend_checks_its_path_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hf_classifier/PATH`` (an encoder judge) would otherwise hand a mistyped path to from_pretrained as a
    hub id."""
    with pytest.raises(ConfigError, match="no such local model folder or file") as info:
        create_backend(f"hf_classifier/{tmp_path / 'judge-typo'}", options=BackendOptions())
    assert "hf_classifier/hub:ORG/NAME" in str(info.value)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match="HF_HUB_OFFLINE is set"):
        create_backend("hf_classifier/hub:org/judge", options=BackendOptions())
    assert create_backend(f"hf_classifier/{tmp_path}", options=BackendOptions()).model == str(tmp_path)
