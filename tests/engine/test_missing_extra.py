"""A command whose optional package is missing ends in one line naming the package and the extra that
brings it, never in a bare traceback (``compare``/``report`` need only the core install)."""

from __future__ import annotations

import pytest
import typer

from omnieval.cli._common import friendly_errors, missing_package_message


def test_a_missing_optional_package_is_one_line_naming_its_extra(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as exit_info, friendly_errors():
        raise ModuleNotFoundError("No module named 'statsmodels'", name="statsmodels")
    assert exit_info.value.exit_code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'statsmodels'" in err and "pip install 'omnieval[analysis]'" in err


def test_names_are_matched_as_pip_does_and_unknown_ones_say_so() -> None:
    assert "omnieval[ray]" in missing_package_message("ray.util")
    assert "omnieval[" not in missing_package_message("not_a_dependency_of_ours")


def test_a_missing_module_of_omnieval_itself_is_a_real_bug_and_not_hidden() -> None:
    with pytest.raises(ModuleNotFoundError), friendly_errors():
        raise ModuleNotFoundError("No module named 'omnieval.nope'", name="omnieval.nope")
