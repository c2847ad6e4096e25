"""A platform server in its own process (``omnieval.platform.serve``, as ``omnieval serve`` runs it) with
settings a test chooses: ``python -m tests.platform.live PORT SETTINGS_JSON``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _settings(fields: dict[str, Any]) -> Any:
    from omnieval.platform.settings import Settings

    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
    return Settings(**{**values, "data_dir": Path(values["data_dir"])})


@contextmanager
def live_server(fields: dict[str, Any]) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The base URL of a server started with ``Settings(**fields)``, and its process (stopped at the end)."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    cmd = [sys.executable, "-m", "tests.platform.live", str(port), json.dumps(fields, default=str)]
    server = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, "the server exited"
            assert time.monotonic() < deadline, "the server never listened"
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", server
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=20)


if __name__ == "__main__":
    from omnieval.platform.serve import serve

    serve(_settings(json.loads(sys.argv[2])), host="127.0.0.1", port=int(sys.argv[1]))
