"""Write a folder in full beside its destination, then move it into place (protect mark, generate, sets).

The staging folder is ``.<output name>.partial-<pid>-<random>`` in the output's parent, so a failed or
interrupted run never leaves a half-written folder that looks whole. A killed run cannot remove its
staging folder; the next run for the same output removes every such folder whose process is gone and
says so on stderr. A folder whose process still runs (or whose process we cannot check) is left alone.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from omnieval.errors import StoreError

__all__ = ["remove_stale_partials", "staged_dir"]

# mkdtemp's random suffix uses letters, digits and "_", never ".", so the last ".partial-" is the outer one
_PARTIAL = re.compile(r"\.(?P<inner>.+)\.partial-(?P<pid>\d+)-[A-Za-z0-9_]+")


def _owners(name: str, output_name: str) -> list[int] | None:
    """The PIDs in a staging folder name of ``output_name`` (one per level, as a generator may stage
    inside the folder it is given); ``None`` when ``name`` is not one."""
    match = _PARTIAL.fullmatch(name)
    if match is None:
        return None
    pid, inner = int(match["pid"]), match["inner"]
    if inner == output_name:
        return [pid]
    outer = _owners(inner, output_name)
    return None if outer is None else [*outer, pid]


def _running(pid: int) -> bool:
    """False only when no process ``pid`` exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's process, or a PID we cannot ask about
        return True
    return True


def remove_stale_partials(output: Path) -> list[Path]:
    """Remove the staging folders of ``output`` left by runs whose processes are gone; return them."""
    removed: list[Path] = []
    if not output.parent.is_dir():
        return removed
    for entry in sorted(output.parent.iterdir()):
        owners = _owners(entry.name, output.name)
        if owners is None or entry.is_symlink() or not entry.is_dir() or any(map(_running, owners)):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        print(
            f"omnieval: removed {entry}, left by an interrupted run (process {owners[0]} is gone)",
            file=sys.stderr,
        )
        removed.append(entry)
    return removed


def _publish(tmp: Path, output: Path, *, replace: bool) -> None:
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)  # mkdtemp makes it private; the result is an ordinary folder
    if replace and output.is_dir() and not output.is_symlink():
        shutil.rmtree(output)
    elif replace and (output.exists() or output.is_symlink()):
        output.unlink()
    elif output.is_dir() and not any(output.iterdir()):
        output.rmdir()
    elif output.exists() or output.is_symlink():
        raise StoreError(f"output folder {output} exists and is not empty; choose a new one")
    os.replace(tmp, output)


@contextmanager
def staged_dir(output: Path, *, replace: bool = False) -> Iterator[Path]:
    """A new empty folder beside ``output`` that becomes ``output`` only when the block finishes.

    ``output`` may exist beforehand only as an empty folder, or as anything with ``replace``.
    Stale staging folders of the same output are removed first (see the module docstring).
    """
    output.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(output)
    tmp = Path(tempfile.mkdtemp(prefix=f".{output.name}.partial-{os.getpid()}-", dir=output.parent))
    try:
        yield tmp
        _publish(tmp, output, replace=replace)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
