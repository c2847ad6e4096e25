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


def _request(sample: str, audio: bytes, *more: bytes) -> Request:
    parts: list[TextPart | AudioPart] = [TextPart(text="Что слышно?")]
    for i, clip in enumerate((audio, *more)):
        parts.append(AudioPart(media=MediaRef(kind="audio", name=f"{'ab'[i]}.wav", data=clip)))
    return Request(task="t", sample_id=sample, messages=(Message(role="user", content=tuple(parts)),))


def _video(path: Path) -> Path:
    """A short mp4 of noise frames (noise does not compress: some hundred kB)."""
    import av

    noise = np.random.default_rng(0)
    with av.open(str(path), "w") as container:
        stream = container.add_stream("mpeg4", rate=10)
        stream.width, stream.height, stream.pix_fmt = 96, 64, "yuv420p"
        stream.codec_context.bit_rate = 8_000_000
        for _ in range(10):
            pixels = noise.integers(0, 256, (64, 96, 3), dtype=np.uint8)
            container.mux(stream.encode(av.VideoFrame.from_ndarray(pixels, format="rgb24")))
        container.mux(stream.encode())
    return path


def _backend(server: FakeGemini, tmp_path: Path, **extra: Any) -> GeminiBackend:
    options = BackendOptions(base_url=server.url, media_cache_dir=str(tmp_path), extra=extra)
    return GeminiBackend("gemini-test", options=options)


def _generated(server: FakeGemini) -> list[dict[str, Any]]:
    return [body for path, body in server.requests if path.endswith(":generateContent")]


def _media_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for c in body["contents"] for p in c["parts"] if "text" not in p]


def _file_data(part: dict[str, Any]) -> tuple[str, str]:
    """(uri, mime type) of a ``fileData`` part (the SDK writes its fields in snake case, which Google's
    JSON parser accepts like camel case)."""
    file = part.get("fileData") or part["file_data"]
    return file.get("fileUri") or file["file_uri"], file.get("mimeType") or file["mime_type"]


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
        assert _file_data(part)[0].endswith("/v1beta/files/f0")
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


def test_several_large_parts_in_one_request_the_largest_first_each_its_own_file(tmp_path: Path) -> None:
    short, long = _wav(1.0, tone=300.0), _wav(2.0, tone=500.0)
    with FakeGemini().in_thread() as server:
        one = _backend(server, tmp_path, inline_limit_mb=0.1)
        first = asyncio.run(one.generate(_request("1", short, long)))
        both = _backend(server, tmp_path, inline_limit_mb=0.01)
        second = asyncio.run(both.generate(_request("2", short, long)))
    inline, uploaded = _media_parts(_generated(server)[0])
    assert "inlineData" in inline and "fileData" in uploaded, (
        "only the larger clip (the second part) uploaded"
    )
    assert first.media["b.wav"]["files_api"] == ["files/f0"] and "files_api" not in first.media["a.wav"]
    assert one.uploaded == 1 and both.uploaded == 2
    sizes = {f"files/{fid}": len(entry["data"]) for fid, entry in server.files.items()}
    uris = [_file_data(p)[0].rsplit("/", 1)[1] for p in _media_parts(_generated(server)[1])]
    assert sizes[f"files/{uris[0]}"] < sizes[f"files/{uris[1]}"], "each part points at its own upload"
    assert len(set(uris)) == 2 and sizes[f"files/{uris[0]}"] > 30_000
    assert second.media["a.wav"]["files_api"] == [f"files/{uris[0]}"]
    assert second.media["b.wav"]["files_api"] == [f"files/{uris[1]}"]


def test_a_429_while_polling_is_retryable_and_the_retry_polls_without_uploading_again(
    tmp_path: Path,
) -> None:
    with FakeGemini(processing_polls=1, poll_faults=[429], retry_after=2).in_thread() as server:
        backend = _backend(server, tmp_path, inline_limit_mb=0.01, file_poll_s=0.01)
        with pytest.raises(BackendError) as caught:
            asyncio.run(backend.generate(_request("1", _wav(1.0))))
        response = asyncio.run(backend.generate(_request("1", _wav(1.0))))
        again = asyncio.run(backend.generate(_request("2", _wav(1.0))))
    error = caught.value
    assert error.retryable and error.rate_limited and error.retry_after == 2.0
    assert "polling files/f0" in str(error) and "RESOURCE_EXHAUSTED" in str(error)
    assert backend.uploaded == 1 and len(server.files) == 1, "the retry polled the uploaded file"
    assert response.media["a.wav"]["files_api"] == ["files/f0"] == again.media["a.wav"]["files_api"]
    polls = [p for p, _ in server.requests if p.startswith("/v1beta/files/")]
    assert len(polls) == 2, "the ACTIVE file is cached across event loops: no further poll or upload"


def _media_task(folder: Path, kind: str, files: list[Path], answer: str, *, media: str = "") -> Path:
    """A task YAML over ``files`` (one sample each) asking about its ``kind`` medium."""
    rows = [{"id": str(i), kind: str(path), "answer": answer} for i, path in enumerate(files)]
    (folder / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "t.yaml").write_text(
        f"name: t\nmodalities: [{kind}]\n{media}"
        "source: {type: jsonl, path: t.jsonl, fields: {input: null, targets: answer, "
        f"media: [{{field: {kind}, kind: {kind}}}]}}}}\n"
        f'prompt: {{template: "<{kind}>\\nЧто там?"}}\nmetrics: [exact_match]\n',
        encoding="utf-8",
    )
    return folder / "t.yaml"


def _run(task: Path, server: FakeGemini, out: Path, *extra: str) -> list[dict[str, Any]]:
    """``omnieval run`` with the inline limit at 10 kB (every medium here goes through the Files API)."""
    opts = ["--backend-opt", "inline_limit_mb=0.01", "--backend-opt", "file_poll_s=0.01"]
    args = ["run", "--tasks", str(task), "--model", "gemini/gemini-test", "--base-url", server.url, *opts]
    result = CliRunner().invoke(app, [*args, "--output", str(out), "-q", *extra])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_a_run_with_a_large_video_file_goes_through_the_files_api(tmp_path: Path) -> None:
    clip = _video(tmp_path / "clip.mp4")
    assert clip.stat().st_size > 20_000
    task = _media_task(tmp_path, "video", [clip], "шум", media="media: {video_mode: file}\n")
    with FakeGemini(answer="шум", processing_polls=2).in_thread() as server:
        (record,) = _run(task, server, tmp_path / "out")
    assert record["state"] == "ok" and record["score"] == 1.0
    (uploaded,) = server.files.values()
    assert uploaded["mime"] == "video/mp4" and uploaded["data"] == clip.read_bytes()
    (part,) = _media_parts(_generated(server)[0])
    assert _file_data(part)[1] == "video/mp4"
    assert len([p for p, _ in server.requests if p.startswith("/v1beta/files/")]) == 2, "PROCESSING polled"


def test_a_run_with_large_audio_goes_through_the_files_api_and_retries_a_503(tmp_path: Path) -> None:
    clips = []
    for i in range(3):
        clips.append(tmp_path / f"{i}.wav")
        clips[-1].write_bytes(_wav(1.0, tone=300.0 + 100 * i))
    task = _media_task(tmp_path, "audio", clips, "тон")
    out = tmp_path / "out"
    with FakeGemini(answer="тон", upload_faults=[503]).in_thread() as server:
        records = _run(task, server, out, "--concurrency", "1")
    assert {r["state"] for r in records} == {"ok"} and len(records) == 3
    assert len(server.files) == 3, "three different clips: three uploads (the 503 was retried)"
    assert all(r["media_policy"]["audio"]["files_api"][0].startswith("files/") for r in records), records[0]
    backend = json.loads((out / "manifest.json").read_text())["backend"]
    assert backend["inline_limit_mb"] == 0.01 and backend["api_version"] == "v1beta"
    assert "Files API" in backend["media"]


def test_an_upload_about_to_expire_is_uploaded_again(tmp_path: Path) -> None:
    audio = _wav(1.0)

    async def one_after_another(backend: GeminiBackend) -> list[Any]:
        return [await backend.generate(_request(sample, audio)) for sample in "12"]

    with FakeGemini(expire_s=1800).in_thread() as server:
        backend = _backend(server, tmp_path, inline_limit_mb=0.01)
        first, second = asyncio.run(one_after_another(backend))
    assert backend.uploaded == 2, "a file Google deletes within the hour is not reused"
    assert first.media["a.wav"]["files_api"] == ["files/f0"] and second.media["a.wav"]["files_api"] == [
        "files/f1"
    ]
    with FakeGemini().in_thread() as server:
        backend = _backend(server, tmp_path, inline_limit_mb=0.01)
        asyncio.run(one_after_another(backend))
    assert backend.uploaded == 1, "48 h ahead: reused"


def test_a_video_goes_as_its_sampled_frames_or_as_the_file_itself(tmp_path: Path) -> None:
    from omnieval.types import MediaPolicy, VideoPart

    clip = _video(tmp_path / "clip.mp4")
    part = VideoPart(media=MediaRef(kind="video", name="v.mp4", path=str(clip)))
    backend = GeminiBackend("g", options=BackendOptions(base_url="http://127.0.0.1:9"))
    for mode in ("frames", "file"):
        request = Request(
            task="t",
            sample_id=mode,
            messages=(Message(role="user", content=(part,)),),
            media_policy=MediaPolicy(video_mode=mode, video_max_frames=4),
        )
        contents, _, applied = backend.body(request)
        blobs = [p.inline_data for p in contents[0].parts]
        if mode == "frames":
            assert 1 <= len(blobs) <= 4 and {b.mime_type for b in blobs} <= {"image/jpeg", "image/png"}
        else:
            assert [(b.mime_type, b.data) for b in blobs] == [("video/mp4", clip.read_bytes())]
        assert set(applied) == {"v.mp4"}
