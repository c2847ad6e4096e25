"""Options defined once (issue 32): every field of the option models is a flag of ``omnieval run`` and a
keyword of ``omnieval.evaluate`` under the same name, with the same default and the same validation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from pydantic import ValidationError
from typer.testing import CliRunner

import omnieval
from omnieval.cli.app import app
from omnieval.cli.option_params import cli_values, flag
from omnieval.options import GROUPS, PANELS, RunTarget
from omnieval.options.build import run_config, run_options

FIELDS = [(name, field) for group in GROUPS for name, field in group.model_fields.items()]
REQUIRED = ["--tasks", "jsonl:nothing.jsonl", "--model", "baseline/oracle"]


def _command(name: str = "run") -> Any:
    return typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]


def _parsed(*args: str, command: str = "run") -> dict[str, Any]:
    """The keywords ``omnieval COMMAND ARGS`` hands to the options, without running anything."""
    ctx = _command(command).make_context(command, [*REQUIRED, *args] if command == "run" else list(args))
    values = cli_values(dict(ctx.params))
    for name in RunTarget.model_fields:
        values.pop(name, None)
    return values


def _bad_value(field: Any) -> Any:
    """A value the field's validation refuses: just past a bound, or outside a Literal."""
    for rule in field.metadata:
        for attr, past in (("ge", -1), ("gt", 0), ("le", 1)):
            bound = getattr(rule, attr, None)
            if bound is not None:
                return bound + past
    if "Literal" in str(field.annotation):
        return "nope"
    return None


CONSTRAINED = [(name, field, _bad_value(field)) for name, field in FIELDS if _bad_value(field) is not None]


def test_every_option_is_a_flag_and_a_keyword_of_the_same_name() -> None:
    params = {p.name: p for p in _command().params}
    for name, field in FIELDS:
        assert name in params, f"{name} is not an option of omnieval run"
        assert flag(name) in params[name].opts, (name, params[name].opts)
        assert params[name].help == field.description and field.description
    config = run_config(run_options({}), tasks=("t",), model="baseline/oracle", output=Path("o"))
    assert {"limit", "seed", "quiet"} <= config.model_fields_set  # the keywords build the run's config


PART = {"WhatToRun": "what", "HowToRun": "how", "JudgeOptions": "judges", "WhatToWrite": "write"}


def test_the_defaults_are_the_same() -> None:
    from_cli = run_options(_parsed())
    from_api = run_options({})
    assert from_cli == from_api
    params = {p.name: p for p in _command().params}
    for group in GROUPS:
        for name, field in group.model_fields.items():
            default = field.get_default(call_default_factory=True)
            assert getattr(getattr(from_api, PART[group.__name__]), name) == default, name
            if default not in (None, (), {}):  # shown by --help as the model's own default
                assert params[name].default == default, name


@pytest.mark.parametrize(("name", "field", "bad"), CONSTRAINED, ids=[c[0] for c in CONSTRAINED])
def test_the_validation_is_the_same(name: str, field: Any, bad: Any) -> None:
    with pytest.raises(ValidationError) as err:
        run_options({name: bad})
    assert err.value.errors()[0]["loc"][0] == name
    result = CliRunner().invoke(app, ["run", *REQUIRED, flag(name), str(bad)])
    assert result.exit_code == 2, result.output
    assert f"omnieval: error: {flag(name)}: " in result.output
    assert "Traceback" not in result.output


def test_limit_zero_is_refused_by_both(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="limit"):
        omnieval.evaluate(model="baseline/oracle", tasks=["jsonl:x.jsonl"], limit=0)
    result = CliRunner().invoke(app, ["run", *REQUIRED, "--limit", "0", "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "--limit: Input should be greater than or equal to 1" in result.output
    assert not (tmp_path / "o").exists()


def test_a_misspelt_keyword_says_what_was_meant() -> None:
    with pytest.raises(TypeError) as err:
        omnieval.evaluate(model="baseline/oracle", tasks=["t"], temprature=0.0)
    assert "['temprature'] (did you mean temperature?)" in str(err.value)
    with pytest.raises(TypeError) as err:
        omnieval.evaluate(model="baseline/oracle", tasks=["t"], use_cache=False)
    assert "use_cache: now cache" in str(err.value)
    with pytest.raises(TypeError, match="did you mean max_tokens"):
        omnieval.sweep(models=["baseline/oracle"], tasks=["t"], output="x", max_token=3)


def test_former_flags_still_work() -> None:
    values = _parsed("--batch", "--batch-size-requests", "7", "--batch-poll", "2.5", "--batch-pending", "9")
    how = run_options(values).how
    assert (how.batch_api, how.batch_api_group_size, how.batch_api_poll, how.batch_api_pending) == (
        True,
        7,
        2.5,
        9,
    )
    assert run_options(_parsed("--batch-api-group-size", "8")).how.batch_api_group_size == 8


def test_list_and_key_value_options_read_alike() -> None:
    cli = run_options(
        _parsed("--sample-ids", "a,b", "--sample-ids", "c", "--backend-opt", "x=1", "--log-to", "t")
    )
    api = run_options({"sample_ids": ["a,b", "c"], "backend_opt": {"x": 1}, "log_to": "t"})
    assert cli == api and api.what.sample_ids == ("a", "b", "c") and api.write.log_to == ("t",)


def _manifest_config(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["config"]


def _task(tmp_path: Path) -> str:
    path = tmp_path / "qa.jsonl"
    path.write_text(
        "".join(json.dumps({"id": str(i), "question": "q", "answer": "a"}) + "\n" for i in range(3))
    )
    return f"jsonl:{path}"


def test_batch_size_is_the_local_batch_size_in_both(tmp_path: Path) -> None:
    task = _task(tmp_path)
    result = CliRunner().invoke(
        app,
        ["run", "-t", task, "-m", "baseline/oracle", "-o", str(tmp_path / "cli"), "--batch-size", "2", "-q"],
    )
    assert result.exit_code == 0, result.output
    omnieval.evaluate(
        model="baseline/oracle", tasks=[task], output=tmp_path / "api", batch_size=2, quiet=True
    )
    cli, api = _manifest_config(tmp_path / "cli"), _manifest_config(tmp_path / "api")
    assert cli["backend"]["batch_size"] == api["backend"]["batch_size"] == 2
    assert cli["batch_api_group_size"] == api["batch_api_group_size"] == 1000  # the Batch API's: untouched
    assert {k: v for k, v in cli.items() if k != "output"} == {k: v for k, v in api.items() if k != "output"}


def test_a_run_recorded_before_the_rename_still_rescores_and_resumes(tmp_path: Path) -> None:
    from omnieval.runner import RunConfig

    task, run = _task(tmp_path), tmp_path / "old"
    omnieval.evaluate(model="baseline/oracle", tasks=[task], output=run, quiet=True, limit=2)
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    config = manifest["config"]
    config["batch_size"] = config.pop("batch_api_group_size") - 500  # as an older omnieval wrote it
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert RunConfig.model_validate(config).batch_api_group_size == 500
    assert omnieval.score(run).tasks["qa"].score == 1.0
    resumed = omnieval.evaluate(model="baseline/oracle", tasks=[task], output=run, quiet=True)
    assert sum(resumed.tasks["qa"].states.values()) == 3


def _help(columns: int, *args: str) -> str:
    env = {**os.environ, "COLUMNS": str(columns)}
    proc = subprocess.run(
        [sys.executable, "-m", "omnieval", "run", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("columns", [100, 80])
def test_the_help_is_short_grouped_and_uncut(columns: int) -> None:
    text = _help(columns, "--help")
    panels = [p for p in PANELS if f"─ {p} ─" in text]
    assert len(panels) >= 4, panels
    assert "…" not in text
    if columns == 100:
        assert len(text.splitlines()) <= 150
    everything = _help(columns, "--help-all")
    assert "…" not in everything
    shown_all = [flag(name) for name, _ in FIELDS if flag(name) not in text]
    assert shown_all, "some options are rarely used and only under --help-all"
    for name in shown_all:
        assert name in everything, name


def test_the_breaker_default_is_the_breakers() -> None:
    from omnieval.backends.breaker import DEFAULT_THRESHOLD

    assert run_options({}).how.breaker_threshold == DEFAULT_THRESHOLD
