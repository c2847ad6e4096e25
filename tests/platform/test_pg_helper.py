"""The PostgreSQL test helper finds the server binaries of any Debian release (no server needed)."""

from __future__ import annotations

from pathlib import Path


def test_the_newest_debian_postgresql_is_found(tmp_path: Path) -> None:
    from tests.platform.pg import find_bin

    for major in ("9", "15", "17", "common"):
        (tmp_path / major / "bin").mkdir(parents=True)
        (tmp_path / major / "bin" / "initdb").touch()
    assert find_bin(tmp_path) == tmp_path / "17" / "bin"  # numerically newest, not "9" by string order
