"""``platform add-benchmark`` that fails (a dataset without answers) leaves the data directory as it was."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from omnieval.benchmarks.mera.mini import make_mini
from omnieval.cli.app import app


def _add(data: Path, root: Path, name: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["platform", "add-benchmark", "--data-dir", str(data), "--name", name, "--tasks", f"mera:{root}"]
    )
    return result.exit_code, result.output


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_failed_add_benchmark_leaves_nothing_behind(tmp_path: Path) -> None:
    hidden = make_mini(tmp_path / "hidden", n=3, tasks=["realvqa"])  # published without answers
    data = tmp_path / "data"
    code, out = _add(data, hidden, "hidden")
    assert code == 2 and "has no answer" in out
    assert not data.exists()  # no platform.db, no half-copied answers


def test_failed_add_benchmark_keeps_an_existing_platform_as_it_was(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert _add(data, make_mini(tmp_path / "mera", n=3, tasks=["ruclevr"]), "mera")[0] == 0
    before = _tree(data)
    assert "platform.db" in before
    code, out = _add(data, make_mini(tmp_path / "hidden", n=3, tasks=["realvqa"]), "hidden")
    assert code == 2 and "has no answer" in out
    assert _tree(data) == before
