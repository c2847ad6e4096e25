"""The example third-party plugin under examples/ installs with pip and its task runs."""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "omnieval-plugin-example"


def _venv(root: Path) -> Path:
    """A fresh venv that sees this interpreter's packages (offline: pip, setuptools and omnieval come
    along)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=60)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = [
        p for p in dict.fromkeys([*sys.path, sysconfig.get_path("purelib"), *site.getsitepackages()]) if p
    ]
    (Path(purelib) / "_parent.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    return python


def _run_example_task(python: Path | str, out: Path) -> subprocess.CompletedProcess[str]:
    command = [str(python), "-m", "omnieval", "run", "--tasks", "example_sums", "--model", "baseline/oracle"]
    return subprocess.run(
        [*command, "--output", str(out), "--quiet"],
        capture_output=True,
        text=True,
        cwd=out.parent,
        timeout=300,
    )


def test_the_example_plugin_installs_with_pip_and_its_task_runs(tmp_path: Path) -> None:
    python = _venv(tmp_path / "venv")
    source = shutil.copytree(EXAMPLE, tmp_path / "example")  # a build leaves files next to the sources
    pip = [
        str(python),
        "-m",
        "pip",
        "install",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        str(source),
    ]
    installed = subprocess.run(pip, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert installed.returncode == 0, installed.stderr
    run = _run_example_task(python, tmp_path / "run")
    assert run.returncode == 0, run.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    block = results["tasks"]["example_sums"]
    assert block["n"] == 4 and block["score"] == 1.0 and block["metrics"]["example.digit_sum"] == 1.0


def test_the_example_plugin_is_not_there_without_installing_it(tmp_path: Path) -> None:
    run = _run_example_task(sys.executable, tmp_path / "run")
    assert run.returncode == 2 and "example_sums" in run.stderr
