"""No import circle anywhere: every package has its own acyclic contract, and the contracts hold."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "omnieval"


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["importlinter"]["contracts"]  # type: ignore[no-any-return]


def test_every_package_has_an_acyclic_contract() -> None:
    """A package added later cannot be forgotten: its circles would go unseen."""
    covered = {
        ancestor
        for contract in _contracts()
        if contract["type"] == "acyclic_siblings"
        for ancestor in contract["ancestors"]  # type: ignore[attr-defined]
    }
    packages = {f"omnieval.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    assert packages, "no package found under src/omnieval"
    assert "omnieval" in covered
    assert sorted(packages - covered) == []


def test_the_import_contracts_hold() -> None:
    """lint-imports over the project's contracts: layers, forbidden imports and no circles."""
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout
