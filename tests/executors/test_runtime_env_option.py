"""``--ray-runtime-env``: JSON text or a JSON/YAML file holding a mapping; anything else is a one-line
error."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from omnieval.cli.run_cmd import runtime_env_option


def test_json_text_and_yaml_file(tmp_path: Path) -> None:
    assert runtime_env_option(None) is None
    assert runtime_env_option('{"pip": ["omnieval[ray]==0.1.0"]}') == {"pip": ["omnieval[ray]==0.1.0"]}
    (tmp_path / "env.yaml").write_text("py_modules: [/src/omnieval]\nenv_vars: {A: '1'}\n", encoding="utf-8")
    assert runtime_env_option(str(tmp_path / "env.yaml")) == {
        "py_modules": ["/src/omnieval"],
        "env_vars": {"A": "1"},
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("no-such-file.yaml", "neither JSON text nor a file"),
        ('{"pip": [', "not JSON/YAML"),
    ],
)
def test_bad_values_are_one_line_errors(value: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit):
        runtime_env_option(value)
    assert message in capsys.readouterr().err


def test_a_file_that_is_not_a_mapping(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "env.yaml").write_text("- pip\n", encoding="utf-8")
    with pytest.raises(typer.Exit):
        runtime_env_option(str(tmp_path / "env.yaml"))
    err = capsys.readouterr().err
    assert "expected a mapping" in err and "env.yaml" in err
