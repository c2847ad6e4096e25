"""The API embedder against a local OpenAI-compatible ``/embeddings`` server; spec and option errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import numpy as np
import pytest

from omnieval.benchmarks.marker.embedders import create_embedder
from omnieval.errors import ConfigError, RegistryError


class _Handler(BaseHTTPRequestHandler):
    calls: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.calls.append({"path": self.path, "auth": self.headers.get("authorization"), **body})
        if body["model"] == "broken":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"overloaded")
            return
        data = [{"index": i, "embedding": [len(text), 3.0]} for i, text in enumerate(body["input"])]
        payload = json.dumps({"data": data[::-1]}).encode()  # out of order: the client must sort by index
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Handler.calls = []
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


def test_api_embedder_batches_orders_and_normalises(server: str) -> None:
    embedder = create_embedder("openai/emb-small", base_url=server, api_key="k-123", batch_size=2)
    vectors = embedder.embed(["a", "bbbb", "cc", "d", "eeeee"])
    expected = np.array([[n, 3.0] for n in (1, 4, 2, 1, 5)])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected)
    assert [len(c["input"]) for c in _Handler.calls] == [2, 2, 1]
    assert {(c["path"], c["auth"], c["model"]) for c in _Handler.calls} == {("/v1/embeddings", "Bearer k-123", "emb-small")}


def test_api_errors_and_bad_specs_are_named(server: str) -> None:
    with pytest.raises(ConfigError, match=r"HTTP 500.*overloaded"):
        create_embedder("openai/broken", base_url=server).embed(["x"])
    with pytest.raises(ConfigError, match="PROVIDER/NAME"):
        create_embedder("frida")
    with pytest.raises(RegistryError):
        create_embedder("nosuch/model")
    with pytest.raises(ConfigError, match="not a local model folder"):
        create_embedder("hf/does/not/exist")
