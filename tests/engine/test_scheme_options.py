"""A leaderboard scheme's options are checked against the scheme before it runs: a clear one-line error,
never a traceback, and for a sweep before any model is run."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import omnieval
from omnieval.cli import app
from omnieval.errors import OmnievalError


def test_leaderboard_refuses_an_option_the_scheme_does_not_take(tmp_path: Path) -> None:
    runs = [tmp_path / "a", tmp_path / "b"]
    for run in runs:
        omnieval.evaluate(tasks=["demo_text"], model="baseline/oracle", output=run, limit=2, quiet=True)
    result = CliRunner().invoke(
        app, ["leaderboard", *map(str, runs), "--scheme", "mera", "--option", "colour=[1,2]"]
    )
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "leaderboard scheme 'mera' does not take option(s) ['colour']" in result.output
    assert "weighting" in result.output  # what it does take
    bad = CliRunner().invoke(app, ["leaderboard", *map(str, runs), "--option", "no-equals"])
    assert bad.exit_code != 0 and "--option expects KEY=VALUE, got 'no-equals'" in bad.output


def test_a_sweep_checks_its_scheme_options_before_running_a_model(tmp_path: Path) -> None:
    with pytest.raises(OmnievalError, match=r"does not take option\(s\) \['colour'\]"):
        omnieval.sweep(
            models=["baseline/oracle"],
            tasks=["demo_text"],
            output=tmp_path / "sweep",
            scheme="mera",
            scheme_options={"colour": 1},
            limit=2,
            quiet=True,
        )
    assert not (tmp_path / "sweep").exists()
