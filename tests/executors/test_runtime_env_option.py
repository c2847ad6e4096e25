"""``--ray-runtime-env`` / ``ray_runtime_env=``: a mapping, JSON text or a JSON/YAML file holding a mapping;
anything else is a one-line error naming the option."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from omnieval.cli.app import app
from omnieval.options import HowToRun


def test_json_text_a_yaml_file_and_a_mapping(tmp_path: Path) -> None:
    assert HowToRun().ray_runtime_env is None
    pip = {"pip": ["omnieval[ray]==0.1.0"]}
    assert HowToRun(ray_runtime_env='{"pip": ["omnieval[ray]==0.1.0"]}').ray_runtime_env == pip
    assert HowToRun(ray_runtime_env=pip).ray_runtime_env == pip
    (tmp_path / "env.yaml").write_text("py_modules: [/src/omnieval]\nenv_vars: {A: '1'}\n", encoding="utf-8")
    assert HowToRun(ray_runtime_env=str(tmp_path / "env.yaml")).ray_runtime_env == {
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
def test_bad_values_are_one_line_errors(value: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        HowToRun(ray_runtime_env=value)
    args = ["run", "-t", "x", "-m", "baseline/oracle", "--executor", "ray", "--ray-runtime-env", value]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "omnieval: error: --ray-runtime-env: " in result.output
    assert message in result.output


def test_a_file_that_is_not_a_mapping(tmp_path: Path) -> None:
    (tmp_path / "env.yaml").write_text("- pip\n", encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        HowToRun(ray_runtime_env=str(tmp_path / "env.yaml"))
    assert "expected a mapping" in str(err.value) and "env.yaml" in str(err.value)
