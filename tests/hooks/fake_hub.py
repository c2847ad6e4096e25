"""A minimal fake of the Hub's commit API (preupload + commit), enough for huggingface_hub's upload_folder."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeHub:
    def __init__(self, repos: set[str], token: str) -> None:
        self.repos = repos
        self.token = token
        self.commits: list[dict[str, Any]] = []
        self.requests: list[str] = []


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            hub.requests.append(f"POST {self.path}")
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("Authorization") != f"Bearer {hub.token}":
                return self._send(401, {"error": "Invalid credentials"})
            parts = (
                self.path.split("?")[0].strip("/").split("/")
            )  # api/models/ORG/NAME/{preupload|commit}/REV
            repo = "/".join(parts[2:4])
            if repo not in hub.repos:
                return self._send(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
            if parts[4] == "preupload":
                files = json.loads(body)["files"]
                return self._send(
                    200,
                    {
                        "files": [
                            {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files
                        ]
                    },
                )
            if parts[4] == "commit":
                lines = [json.loads(x) for x in body.decode().splitlines() if x.strip()]
                files = {
                    ln["value"]["path"]: base64.b64decode(ln["value"]["content"]).decode()
                    for ln in lines
                    if ln["key"] == "file"
                }
                hub.commits.append({"repo": repo, "revision": parts[5], "files": files})
                return self._send(
                    200,
                    {
                        "commitUrl": f"http://{self.headers['Host']}/{repo}/commit/{'0' * 40}",
                        "commitOid": "0" * 40,
                    },
                )
            return self._send(404, {"error": "unknown route"})

    return Handler


@contextmanager
def fake_hub(repos: set[str], token: str) -> Iterator[tuple[str, FakeHub]]:
    hub = FakeHub(repos, token)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hub
    finally:
        server.shutdown()
        server.server_close()
