"""A throwaway PostgreSQL cluster in a temp dir (Debian's binaries), for the platform's PostgreSQL tests."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def find_bin(root: Path = Path("/usr/lib/postgresql")) -> Path:
    """The newest Debian PostgreSQL's binaries (``ROOT/<major>/bin``; 15 on bookworm, 17 on trixie)."""
    found = [p.parent for p in root.glob("*/bin/initdb") if p.parent.parent.name.isdigit()]
    return max(found, key=lambda b: int(b.parent.name)) if found else root / "15" / "bin"


BIN = find_bin()

__all__ = ["BIN", "PgCluster", "available", "find_bin", "postgres_cluster"]


def available() -> bool:
    return (BIN / "initdb").exists() and (BIN / "pg_ctl").exists()


def _as_owner(cmd: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run its tools as the ``postgres`` account then."""
    if os.geteuid() != 0:
        return cmd
    runuser = shutil.which("runuser")
    if runuser is None:
        raise RuntimeError("running as root without runuser: cannot start PostgreSQL as a non-root user")
    return [runuser, "-u", "postgres", "--", *cmd]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgCluster:
    def __init__(self, port: int) -> None:
        self.port, self._n = port, 0

    def new_database(self) -> str:
        self._n += 1
        name = f"platform{self._n}"
        cmd = [str(BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "omnieval", name]
        subprocess.run(cmd, check=True, capture_output=True)
        return f"postgresql://omnieval@127.0.0.1:{self.port}/{name}"


@contextmanager
def postgres_cluster() -> Iterator[PgCluster]:
    """Start a cluster on a free local port; ``new_database()`` makes a fresh database and gives its URL."""
    base = Path(tempfile.mkdtemp(prefix="omnieval-pg-"))
    base.chmod(0o777)
    data, port = base / "data", _free_port()
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
    run = {"check": True, "capture_output": True}
    subprocess.run(
        _as_owner([str(BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "omnieval", "--no-sync"]), **run
    )  # type: ignore[call-overload]
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    subprocess.run(
        _as_owner(
            [str(BIN / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log"), "-w", "start"]
        ),
        **run,
    )  # type: ignore[call-overload]
    try:
        yield PgCluster(port)
    finally:
        subprocess.run(
            _as_owner([str(BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]), capture_output=True
        )
        shutil.rmtree(base, ignore_errors=True)
