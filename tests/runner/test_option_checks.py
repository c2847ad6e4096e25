"""``--media-opt`` and ``--backend-opt`` are checked before anything runs: unknown keys and wrong types."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.backends import BackendOptions, create_backend
from omnieval.cli.app import app
from omnieval.errors import ConfigError


def _run(tmp_path: Path, *extra: str, model: str = "openai/m") -> tuple[int, str]:
    task = tmp_path / "t.jsonl"
    task.write_text('{"id": "1", "question": "q", "answer": "a"}\n', encoding="utf-8")
    args = [
        "run",
        "-t",
        f"jsonl:{task}",
        "-m",
        model,
        "--base-url",
        "http://127.0.0.1:9/v1",
        "-o",
        str(tmp_path / "o"),
    ]
    result = CliRunner().invoke(app, [*args, *extra])
    return result.exit_code, " ".join(result.output.split())


@pytest.mark.parametrize("dry", [False, True])
def test_misspelt_media_option_lists_the_known_keys(tmp_path: Path, dry: bool) -> None:
    code, out = _run(tmp_path, "--media-opt", "image_max_sid=768", *(["--dry-run"] if dry else []))
    assert code != 0
    assert "'image_max_sid'" in out and "image_max_side" in out and "video_max_frames" in out
    assert not (tmp_path / "o" / "samples.jsonl").exists()


@pytest.mark.parametrize(
    ("option", "words"),
    [
        ("image_max_side=big", "image_max_side='big'"),
        ("audio_mono=[1]", "audio_mono=[1]"),
        ("video_mode=stream", "'frames' or 'file'"),
    ],
)
def test_wrong_media_value_types(tmp_path: Path, option: str, words: str) -> None:
    code, out = _run(tmp_path, "--media-opt", option)
    assert code != 0 and words in out, out


def test_unknown_backend_option_lists_what_the_backend_declares(tmp_path: Path) -> None:
    code, out = _run(tmp_path, "--backend-opt", "http_clent=raw")
    assert code != 0
    assert (
        "'http_clent'" in out and "http_client" in out and "extra_body" in out and "max_tokens_field" in out
    )


def test_wrong_backend_option_type(tmp_path: Path) -> None:
    code, out = _run(tmp_path, "--backend-opt", "extra_body=[1,2]")
    assert code != 0 and "extra_body=[1, 2]" in out and "dictionary" in out


@pytest.mark.parametrize(
    ("spec", "extra", "words"),
    [
        ("hf/.", {"gguf_cahce": False}, "gguf_cache"),
        ("hf/.", {"gguf_cache": "sometimes"}, "gguf_cache='sometimes'"),
        ("vllm/x", {"engine_args": "fast"}, "engine_args='fast'"),
        ("baseline/oracle", {"seed": 1}, "takes no options"),
        ("replay/x.jsonl", {"a": 1}, "takes no options"),
    ],
)
def test_every_backend_declares_its_options(spec: str, extra: dict[str, object], words: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_backend(spec, options=BackendOptions(extra=extra))
    assert words in str(info.value)


def test_valid_options_pass(tmp_path: Path) -> None:
    backend = create_backend(
        "openai/m",
        options=BackendOptions(
            base_url="http://h/v1",
            extra={"http_client": "raw", "extra_body": {"a": 1}},
            media={"image_max_side": 768, "video_mode": "file"},
        ),
    )
    assert backend.settings is not None and backend.settings.http_client == "raw"  # type: ignore[attr-defined]


def test_judge_backend_option_is_checked_before_any_work_and_named_as_the_judge_flag(tmp_path: Path) -> None:
    judge = ["--judge", "openai/j", "--judge-base-url", "http://127.0.0.1:9/v1"]
    code, out = _run(tmp_path, *judge, "--judge-backend-opt", "http_clent=raw", model="baseline/oracle")
    assert code != 0 and "--judge-backend-opt (backend 'openai'): unknown key(s) 'http_clent'" in out, out
    assert not (tmp_path / "o" / "samples.jsonl").exists()
    code, out = _run(
        tmp_path, "--judge", "replay/j.jsonl", "--judge-backend-opt", "a=1", model="baseline/oracle"
    )
    assert code != 0 and "--judge-backend-opt: backend 'replay' takes no options" in out, out


def test_the_known_keys_carry_each_option_s_docstring(tmp_path: Path) -> None:
    """Field docstrings are read when an error lists the keys (not at class creation, which cost start-up)."""
    code, out = _run(tmp_path, "--backend-opt", "http_clent=raw")
    assert code != 0
    assert "max_tokens_field (max_tokens | max_completion_tokens): max_completion_tokens for newer" in out
