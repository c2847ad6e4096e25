"""Staging folders left by killed runs: the next run for the same output removes those whose process is
gone (saying so on stderr) and keeps those of live processes and of other outputs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.cli.app import app
from omnieval.errors import StoreError
from omnieval.store.staging import remove_stale_partials, staged_dir
from tests.protect.conftest import textured_image


@pytest.fixture(scope="module")
def dead_pid() -> int:
    """The PID of a process that has exited and been reaped."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _leftovers(parent: Path, name: str, dead: int) -> dict[str, Path]:
    """Staging folders as killed (dead PID), running (this PID) and nested-generator runs leave them."""
    folders = {
        "stale": parent / f".{name}.partial-{dead}-abc_12",
        "live": parent / f".{name}.partial-{os.getpid()}-def34",
        "stale_nested": parent / f"..{name}.partial-{dead}-x1.partial-{dead}-y2",
        "other_output": parent / f".{name}2.partial-{dead}-abc",
        "not_ours": parent / f".{name}.partial-{dead}-abc.d",
    }
    for path in folders.values():
        path.mkdir(parents=True)
        (path / "half-written.txt").write_text("x", encoding="utf-8")
    return folders


def _only_stale_gone(folders: dict[str, Path]) -> None:
    assert not folders["stale"].exists() and not folders["stale_nested"].exists()
    assert folders["live"].is_dir() and (folders["live"] / "half-written.txt").exists()
    assert folders["other_output"].is_dir() and folders["not_ours"].is_dir()


def test_helper_removes_only_stale_partials_of_the_same_output(
    tmp_path: Path, dead_pid: int, capsys: pytest.CaptureFixture[str]
) -> None:
    folders = _leftovers(tmp_path, "out", dead_pid)
    removed = remove_stale_partials(tmp_path / "out")
    assert sorted(removed) == sorted([folders["stale"], folders["stale_nested"]])
    _only_stale_gone(folders)
    err = capsys.readouterr().err
    assert f"removed {folders['stale']}" in err and f"process {dead_pid} is gone" in err


def test_staged_dir_publishes_only_on_success(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(RuntimeError), staged_dir(out) as tmp:
        (tmp / "a").write_text("1", encoding="utf-8")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
    with staged_dir(out) as tmp:
        assert tmp.name.startswith(f".out.partial-{os.getpid()}-")
        (tmp / "a").write_text("1", encoding="utf-8")
    assert (out / "a").read_text(encoding="utf-8") == "1" and list(tmp_path.iterdir()) == [out]
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask  # an ordinary folder, not mkdtemp's private one
    with pytest.raises(StoreError, match="not empty"), staged_dir(out) as tmp:
        pass
    with staged_dir(out, replace=True) as tmp:
        (tmp / "b").write_text("2", encoding="utf-8")
    assert [p.name for p in out.iterdir()] == ["b"] and list(tmp_path.iterdir()) == [out]


def test_protect_mark_cleans_stale_partials_of_its_output(tmp_path: Path, dead_pid: int) -> None:
    source = tmp_path / "data"
    source.mkdir()
    textured_image(1).save(source / "a.png")
    folders = _leftovers(tmp_path, "marked", dead_pid)
    result = CliRunner().invoke(
        app,
        [
            "protect",
            "mark",
            "--kind",
            "image-invisible",
            "--input",
            str(source),
            "--output",
            str(tmp_path / "marked"),
            "--key",
            "K",
        ],
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "marked" / "a.png").is_file()
    _only_stale_gone(folders)
    assert f"removed {folders['stale']}" in result.stderr


def test_generate_cleans_stale_partials_of_its_output(tmp_path: Path, dead_pid: int) -> None:
    folders = _leftovers(tmp_path, "set", dead_pid)
    result = CliRunner().invoke(app, ["generate", "shapes", "--output", str(tmp_path / "set"), "--n", "2"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "set" / "manifest.jsonl").is_file()
    _only_stale_gone(folders)
    assert f"removed {folders['stale_nested']}" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["set", *(folders[k].name for k in ("live", "other_output", "not_ours"))]
    )
