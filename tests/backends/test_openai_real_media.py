"""The openai backend with the real media stage: what reaches the server decodes to the policy's sizes."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import httpx
import numpy as np
import soundfile
from PIL import Image

from omnieval.backends import BackendOptions
from omnieval.backends.openai_compat import OpenAIBackend
from omnieval.types import AudioPart, ImagePart, MediaPolicy, MediaRef, Message, Request, TextPart
from tests.backends.test_openai_messages import Capture


async def test_image_and_audio_reach_the_server_prepared(tmp_path: Path) -> None:
    image_path = tmp_path / "chart.png"
    Image.new("RGB", (64, 32), (200, 10, 10)).save(image_path)
    audio_path = tmp_path / "speech.wav"
    stereo = np.stack([np.sin(np.linspace(0, 400, 44100)), np.zeros(44100)], axis=1).astype("float32")
    soundfile.write(audio_path, stereo, 44100)
    content = (
        TextPart(text="Что на картинке и в записи?"),
        ImagePart(media=MediaRef(kind="image", name="image", path=str(image_path))),
        AudioPart(media=MediaRef(kind="audio", name="audio", path=str(audio_path))),
    )
    request = Request(
        task="t",
        sample_id="m1",
        messages=(Message(role="user", content=content),),
        media_policy=MediaPolicy(image_max_side=16, audio_sample_rate=16000),
    )
    cap = Capture()
    opts = BackendOptions(base_url="http://x.local/v1", media_cache_dir=str(tmp_path / "cache"))
    backend = OpenAIBackend("m", options=opts, transport=httpx.MockTransport(cap))
    response = await backend.generate(request)

    text, image_part, audio_part = cap.bodies[0]["messages"][0]["content"]
    assert text == {"type": "text", "text": "Что на картинке и в записи?"}
    header, _, payload = image_part["image_url"]["url"].partition(",")
    assert header.startswith("data:image/") and header.endswith(";base64")
    assert Image.open(io.BytesIO(base64.b64decode(payload))).size == (16, 8)
    assert audio_part["input_audio"]["format"] == "wav"
    samples, rate = soundfile.read(io.BytesIO(base64.b64decode(audio_part["input_audio"]["data"])))
    assert rate == 16000 and samples.ndim == 1 and abs(len(samples) - 16000) <= 1
    assert set(response.media) == {"image", "audio"}
    assert response.media["image"]["kind"] == "image"
