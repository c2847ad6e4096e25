"""The one embedder registry: the API embedder against a local ``/embeddings`` server, a tiny local encoder's
pooling, and spec/option errors raised before any model loads."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from omnieval.backends.embeddings import check_embedder, create_embedder, embedders
from omnieval.errors import BackendError, ConfigError, RegistryError
from tests.hf import tiny_models


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
    assert {(c["path"], c["auth"], c["model"]) for c in _Handler.calls} == {
        ("/v1/embeddings", "Bearer k-123", "emb-small")
    }


def test_api_errors_and_bad_specs_are_named(server: str) -> None:
    with pytest.raises(BackendError, match=r"HTTP 500.*overloaded"):
        create_embedder("openai/broken", base_url=server).embed(["x"])
    with pytest.raises(ConfigError, match="PROVIDER/NAME"):
        create_embedder("frida")
    with pytest.raises(RegistryError, match=r"unknown embedder provider 'hff'.*did you mean 'hf'"):
        create_embedder("hff/model")
    with pytest.raises(ConfigError, match="not a local model folder"):
        create_embedder("hf/does/not/exist")
    with pytest.raises(ConfigError, match="pooling must be mean or cls"):
        create_embedder("hf/does/not/exist", pooling="max")


def test_unknown_options_fail_before_anything_loads() -> None:
    """Validation: a typo in an option is named with the accepted ones, for a folder that does not exist."""
    with pytest.raises(
        ConfigError, match=r"embedder hf/nowhere does not take option\(s\) \['pool'\].*'pooling'"
    ):
        check_embedder("hf/nowhere", {"pool": "cls"})
    assert check_embedder("openai/m", {"base_url": "http://x", "timeout_s": 1.0}) is embedders.get("openai")
    assert {"hf", "openai"} <= set(embedders.names())


@pytest.mark.hf
def test_local_encoder_pools_mean_or_first_token_with_prefix(tmp_path: Path) -> None:
    """Recompute both poolings with transformers directly; the prefix changes the input text."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    folder = tiny_models.build_llama(tmp_path / "lm")  # any local transformers model works
    texts = ["один два", "три", "четыре пять шесть"]
    tok, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    with torch.no_grad():
        singles = [model(**tok(f"q: {t}", return_tensors="pt")).last_hidden_state[0] for t in texts]
    mean = np.stack([h.mean(0).numpy() for h in singles])
    first = np.stack([h[0].numpy() for h in singles])
    for pooling, expected in (("mean", mean), ("cls", first)):
        vectors = create_embedder(f"hf/{folder}", pooling=pooling, prefix="q: ", batch_size=2).embed(texts)
        expected = expected / np.linalg.norm(expected, axis=1, keepdims=True)
        assert vectors.shape == expected.shape and np.allclose(vectors, expected, atol=1e-4)
