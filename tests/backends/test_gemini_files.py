"""``gemini/`` above the inline limit: the largest media go through the Files API (resumable upload,
PROCESSING polled until ACTIVE), one upload per content hash shared by concurrent requests, a FAILED
file and an upload's 429/503 as the runner's errors; small media stay inline."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile
from typer.testing import CliRunner

from omnieval.backends import BackendOptions
from omnieval.backends.gemini_backend import GeminiBackend, to_upload
from omnieval.cli.app import app
from omnieval.errors import BackendError
from omnieval.testing.fake_gemini import FakeGemini
from omnieval.types import AudioPart, MediaRef, Message, Request, TextPart


def _wav(seconds: float, *, tone: float = 440.0) -> bytes:
    t = np.arange(int(16000 * seconds)) / 16000
    out = io.BytesIO()
    soundfile.write(out, (0.3 * np.sin(2 * np.pi * tone * t)).astype("float32"), 16000, format="WAV")
    return out.getvalue()


def _request(sample: str, audio: bytes) -> Request:
    parts = (TextPart(text="Что слышно?"), AudioPart(media=MediaRef(kind="audio", name="a.wav", data=audio)))
    return Request(task="t", sample_id=sample, messages=(Message(role="user", content=parts),))


def _backend(server: FakeGemini, tmp_path: Path, **extra: Any) -> GeminiBackend:
    options = BackendOptions(base_url=server.url, media_cache_dir=str(tmp_path), extra=extra)
    return GeminiBackend("gemini-test", options=options)


def _generated(server: FakeGemini) -> list[dict[str, Any]]:
    return [body for path, body in server.requests if path.endswith(":generateContent")]


def _media_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for c in body["contents"] for p in c["parts"] if "text" not in p]


def test_the_largest_parts_are_uploaded_until_the_rest_fits() -> None:
    assert to_upload([50, 10, 30], text_bytes=5, limit=100) == set()
    assert to_upload([50, 10, 30], text_bytes=5, limit=60) == {0}
    assert to_upload([50, 10, 30], text_bytes=5, limit=20) == {0, 2}
    assert to_upload([50, 10, 30], text_bytes=5, limit=1) == {0, 1, 2}


def test_small_media_stay_inline(tmp_path: Path) -> None:
    with FakeGemini(answer="тон").in_thread() as server:
        backend = _backend(server, tmp_path)
        response = asyncio.run(backend.generate(_request("1", _wav(0.2))))
    assert response.text == "тон" and backend.uploaded == 0
    (part,) = _media_parts(_generated(server)[0])
    assert set(part) == {"inlineData"} or set(part) == {"inline_data"}


def test_above_the_limit_one_upload_per_content_shared_by_concurrent_requests(tmp_path: Path) -> None:
    audio = _wav(1.0)

    async def four() -> list[Any]:
        return await asyncio.gather(*(backend.generate(_request(str(i), audio)) for i in range(4)))

    with FakeGemini(processing_polls=2).in_thread() as server:
        backend = _backend(server, tmp_path, inline_limit_mb=0.01, file_poll_s=0.01)
        responses = asyncio.run(four())
    assert len(responses) == 4 and backend.uploaded == 1
    starts = [p for p, _ in server.requests if p == "/upload/v1beta/files"]
    polls = [p for p, _ in server.requests if p.startswith("/v1beta/files/")]
    assert len(starts) == 1, "four requests with the same audio upload it once"
    assert len(polls) == 2, "PROCESSING is polled until ACTIVE"
    (uploaded,) = server.files.values()
    assert len(uploaded["data"]) > 10_000 and uploaded["mime"] == "audio/wav"
    for body in _generated(server):
        (part,) = _media_parts(body)
        file = part.get("fileData") or part.get("file_data")
        assert file["fileUri" if "fileUri" in file else "file_uri"].endswith("/v1beta/files/f0")
    assert all(p.startswith("/v1beta/") or p.startswith("/upload") for p, _ in server.requests), (
        "api_version v1beta in every path"
    )


def test_a_file_that_fails_processing_is_an_error_and_not_cached(tmp_path: Path) -> None:
    with FakeGemini(fail_processing=True).in_thread() as server:
        backend = _backend(server, tmp_path, inline_limit_mb=0.01)
        with pytest.raises(BackendError, match="could not process files/f0"):
            asyncio.run(backend.generate(_request("1", _wav(1.0))))
        with pytest.raises(BackendError, match="could not process files/f1"):
            asyncio.run(backend.generate(_request("2", _wav(1.0))))
    assert backend.uploaded == 2, "a failed upload is tried again by the next request"
    assert not _generated(server), "no generateContent with a file that is not ACTIVE"


def test_an_upload_refused_with_429_is_retryable_with_googles_body(tmp_path: Path) -> None:
    with FakeGemini(upload_faults=[429], retry_after=3).in_thread() as server:
        backend = _backend(server, tmp_path, inline_limit_mb=0.01)
        with pytest.raises(BackendError) as caught:
            asyncio.run(backend.generate(_request("1", _wav(1.0))))
    error = caught.value
    assert error.retryable and error.rate_limited and error.retry_after == 3.0
    assert "Files API upload" in str(error) and "RESOURCE_EXHAUSTED" in str(error)


def test_a_run_with_large_audio_goes_through_the_files_api_and_retries_a_503(tmp_path: Path) -> None:
    folder = tmp_path / "task"
    folder.mkdir()
    rows = []
    for i in range(3):
        (folder / f"{i}.wav").write_bytes(_wav(1.0, tone=300.0 + 100 * i))
        rows.append({"id": str(i), "audio": str(folder / f"{i}.wav"), "answer": "тон"})
    (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "a.yaml").write_text(
        "name: a\nmodalities: [audio]\n"
        "source: {type: jsonl, path: a.jsonl, fields: {input: null, targets: answer, "
        "media: [{field: audio, kind: audio}]}}\n"
        'prompt: {template: "<audio>\\nЧто слышно?"}\nmetrics: [exact_match]\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    with FakeGemini(answer="тон", upload_faults=[503]).in_thread() as server:
        result = CliRunner().invoke(
            app,
            [
                "run",
                "--tasks",
                str(folder / "a.yaml"),
                "--model",
                "gemini/gemini-test",
                "--base-url",
                server.url,
                "--backend-opt",
                "inline_limit_mb=0.01",
                "--concurrency",
                "1",
                "--output",
                str(out),
                "-q",
            ],
        )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert {r["state"] for r in records} == {"ok"} and len(records) == 3
    assert len(server.files) == 3, "three different clips: three uploads (the 503 was retried)"
    manifest = json.loads((out / "manifest.json").read_text())
    assert "inline_limit_mb" in json.dumps(manifest)
