"""vLLM request construction offline: a fake ``LLM`` records what the backend would send."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile
import tiny_models
from PIL import Image

from omnieval.backends import BackendOptions
from omnieval.backends.vllm_backend import VLLMBackend
from omnieval.errors import BackendError, ConfigError
from omnieval.types import (
    AudioPart,
    GenerationConfig,
    ImagePart,
    MediaPolicy,
    MediaRef,
    Message,
    Request,
    TextPart,
    VideoPart,
)


@dataclass
class _Completion:
    text: str
    token_ids: list[int]
    finish_reason: str


@dataclass
class _Output:
    prompt_token_ids: list[int]
    outputs: list[_Completion]


@dataclass
class FakeLLM:
    tokenizer: Any
    calls: list[tuple[list[dict[str, Any]], list[Any]]] = field(default_factory=list)

    def get_tokenizer(self) -> Any:
        return self.tokenizer

    def generate(
        self, prompts: list[dict[str, Any]], *, sampling_params: list[Any], use_tqdm: bool
    ) -> list[_Output]:
        self.calls.append((prompts, sampling_params))
        return [_Output([1, 2, 3], [_Completion("ok", [5, 6], "length")]) for _ in prompts]


@pytest.fixture
def fake(llava_dir: Path) -> tuple[VLLMBackend, FakeLLM, Any]:
    from transformers import AutoProcessor

    proc = AutoProcessor.from_pretrained(llava_dir)
    llm = FakeLLM(tokenizer=proc.tokenizer)
    backend = VLLMBackend("fake", options=BackendOptions(), llm=llm, params_factory=dict, processor=proc)
    return backend, llm, proc


async def test_image_audio_video_request_is_built_for_vllm(
    fake: tuple[VLLMBackend, FakeLLM, Any], tmp_path: Path
) -> None:
    backend, llm, proc = fake
    Image.new("RGB", (64, 48), "red").save(tmp_path / "a.png")
    soundfile.write(tmp_path / "a.wav", np.zeros(8000, dtype="float32"), 8000)
    tiny_models.write_video(tmp_path / "v.mp4", frames=20, fps=10)
    parts = (
        ImagePart(media=MediaRef(kind="image", name="image", path=str(tmp_path / "a.png"))),
        AudioPart(media=MediaRef(kind="audio", name="audio", path=str(tmp_path / "a.wav"))),
        VideoPart(media=MediaRef(kind="video", name="video", path=str(tmp_path / "v.mp4"))),
        TextPart(text="Describe."),
    )
    req = Request(
        task="t",
        sample_id="m1",
        messages=(Message(role="user", content=parts),),
        generation=GenerationConfig(temperature=0.7, top_p=0.9, max_tokens=5, stop=("\n",), seed=3),
        media_policy=MediaPolicy(image_max_side=32, audio_sample_rate=16000, video_fps=2, video_max_frames=3),
    )
    resp = await backend.generate(req)
    [(prompts, params)] = llm.calls
    mm = prompts[0]["multi_modal_data"]
    assert mm["image"].size == (32, 24)  # max side 32 applied by the media stage
    audio, rate = mm["audio"]
    assert rate == 16000 and audio.shape == (16000,)  # 1 s at 8 kHz resampled to 16 kHz
    assert mm["video"].shape == (3, 32, 32, 3)  # 2 s at 2 fps = 4 frames, capped at 3
    msgs = [
        {
            "role": "user",
            "content": [
                {"type": "image"},
                {"type": "audio"},
                {"type": "video"},
                {"type": "text", "text": "Describe."},
            ],
        }
    ]
    assert prompts[0]["prompt"] == proc.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
    assert params == [{"temperature": 0.7, "max_tokens": 5, "top_p": 0.9, "stop": ["\n"], "seed": 3}]
    assert resp.text == "ok" and resp.finish_reason == "length"
    assert resp.usage.prompt_tokens == 3 and resp.usage.completion_tokens == 2
    assert set(resp.media) == {"image", "audio", "video"}


async def test_text_request_has_no_media_and_loglikelihood_is_refused(
    fake: tuple[VLLMBackend, FakeLLM, Any],
) -> None:
    backend, llm, proc = fake
    text = Request(task="t", sample_id="x", messages=(Message(role="user", content="2+2="),))
    ll = Request(
        task="t",
        sample_id="y",
        messages=(Message(role="user", content="2+2="),),
        kind="loglikelihood",
        continuations=("4", "5"),
    )
    out = await backend.generate_many([text, ll])
    assert isinstance(out[1], BackendError) and "loglikelihood" in str(out[1])
    [(prompts, _)] = llm.calls
    rendered = proc.apply_chat_template(
        [{"role": "user", "content": "2+2="}], add_generation_prompt=True, tokenize=False
    )
    assert prompts == [{"prompt": rendered}]
    assert rendered.startswith("USER: 2+2=") and rendered.endswith("ASSISTANT:")


async def test_missing_vllm_is_a_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    try:
        import vllm  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("vllm installed")
    backend = VLLMBackend(
        str(tmp_path), options=BackendOptions()
    )  # an existing folder: the path check passes
    with pytest.raises(BackendError, match=r"omnieval\[vllm\]"):
        await backend.generate(
            Request(task="t", sample_id="x", messages=(Message(role="user", content="hi"),))
        )


def test_vllm_path_must_exist_and_the_hub_is_explicit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mistyped ``vllm/PATH`` is an error, as for ``hf/``: vLLM would otherwise try it as a hub id."""
    with pytest.raises(ConfigError, match="no such local model folder or file") as info:
        VLLMBackend(str(tmp_path / "Qwen2-VL-2B"), options=BackendOptions())
    assert "vllm/hub:ORG/NAME" in str(info.value)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert VLLMBackend("hub:org/model", options=BackendOptions())._path == "org/model"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match="HF_HUB_OFFLINE"):
        VLLMBackend("hub:org/model", options=BackendOptions())
