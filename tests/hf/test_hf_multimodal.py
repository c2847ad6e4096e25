"""The hf backend end to end on tiny LLaVA and Qwen2-Audio models with their real processors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile
import tiny_models
from PIL import Image

from omnieval.backends import BackendOptions, create_backend
from omnieval.errors import BackendError
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

GREEDY = GenerationConfig(temperature=0.0, max_tokens=6)


def _image_request(path: Path, sid: str = "s1", question: str = "How many circles?") -> Request:
    ref = MediaRef(kind="image", name="image", path=str(path))
    msg = Message(role="user", content=(ImagePart(media=ref), TextPart(text=question)))
    return Request(task="t", sample_id=sid, messages=(msg,), generation=GREEDY)


def _direct_generate(model_dir: Path, text_msgs: list[dict[str, object]], **media: object) -> list[int]:
    """Independent reference: the processor, its chat template and model.generate called by hand."""
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    proc = AutoProcessor.from_pretrained(model_dir)
    model = AutoModelForImageTextToText.from_pretrained(model_dir)
    text = proc.apply_chat_template(text_msgs, add_generation_prompt=True, tokenize=False)
    enc = proc(text=[text], return_tensors="pt", **media)
    with torch.inference_mode():
        out = model.generate(**enc, max_new_tokens=6, do_sample=False)
    return [int(t) for t in out[0, enc["input_ids"].shape[1] :]]


async def test_llava_image_request_matches_hand_written_pipeline(llava_dir: Path, tmp_path: Path) -> None:
    img_path = tmp_path / "red.png"
    Image.new("RGBA", (40, 24), (255, 0, 0, 128)).save(img_path)
    backend = create_backend(f"hf/{llava_dir}", options=BackendOptions(batch_size=2))
    resp = await backend.generate(_image_request(img_path))
    loaded = backend.loaded()  # type: ignore[attr-defined]
    msgs = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "How many circles?"}]}]
    white = Image.new("RGB", (40, 24), "white")
    white.paste(Image.open(img_path), mask=Image.open(img_path).split()[3])
    expected_ids = _direct_generate(llava_dir, msgs, images=[white])
    eos = loaded.tokenizer.eos_token_id
    cut = expected_ids.index(eos) if eos in expected_ids else len(expected_ids)
    assert resp.text == loaded.tokenizer.decode(expected_ids[:cut], skip_special_tokens=True)
    assert resp.usage.completion_tokens == cut
    assert resp.finish_reason == ("length" if cut == 6 else "stop")
    assert resp.media["image"]["final_size"] == [40, 24]
    assert resp.extra["template"] == "model"
    await backend.aclose()


async def test_llava_batch_with_images_equals_one_by_one(llava_dir: Path, tmp_path: Path) -> None:
    paths = []
    for i, colour in enumerate(["red", "blue", "green"]):
        paths.append(tmp_path / f"{colour}.png")
        Image.new("RGB", (16 + 8 * i, 32), colour).save(paths[-1])
    reqs = [_image_request(p, sid=str(i), question="How many" + " circles" * i) for i, p in enumerate(paths)]
    batched = create_backend(f"hf/{llava_dir}", options=BackendOptions(batch_size=3))
    single = create_backend(f"hf/{llava_dir}", options=BackendOptions(batch_size=1))
    together = await batched.generate_many(reqs)
    apart = await single.generate_many(reqs)
    assert [r.text for r in together] == [r.text for r in apart]  # type: ignore[union-attr]
    assert {r.extra["batch_size"] for r in together} == {3}  # type: ignore[union-attr]


async def test_llava_rejects_audio_with_named_modality(llava_dir: Path, tmp_path: Path) -> None:
    wav = tmp_path / "a.wav"
    soundfile.write(wav, np.zeros(1600, dtype="float32"), 16000)
    msg = Message(
        role="user", content=(AudioPart(media=MediaRef(kind="audio", name="audio", path=str(wav))),)
    )
    req = Request(task="t", sample_id="a1", messages=(msg,), generation=GREEDY)
    backend = create_backend(f"hf/{llava_dir}", options=BackendOptions())
    with pytest.raises(BackendError, match="does not accept audio") as info:
        await backend.generate(req)
    assert info.value.retryable is False
    assert "'a1'" in str(info.value)


async def test_corrupt_image_fails_only_its_sample(llava_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG not really")
    good = tmp_path / "ok.png"
    Image.new("RGB", (8, 8), "blue").save(good)
    backend = create_backend(f"hf/{llava_dir}", options=BackendOptions(batch_size=4))
    out = await backend.generate_many([_image_request(bad, sid="bad"), _image_request(good, sid="good")])
    assert isinstance(out[0], BackendError) and "broken.png" in str(out[0])
    assert not isinstance(out[1], BaseException) and out[1].ok


async def test_qwen2_audio_request_matches_hand_written_pipeline(
    qwen2_audio_dir: Path, tmp_path: Path
) -> None:
    wav = tmp_path / "tone.wav"
    tone = (0.3 * np.sin(2 * np.pi * 440 * np.arange(8000) / 8000)).astype("float32")
    soundfile.write(wav, tone, 8000)  # 8 kHz on disk: the backend must resample to the extractor's 16 kHz
    ref = MediaRef(kind="audio", name="audio", path=str(wav))
    msg = Message(role="user", content=(AudioPart(media=ref), TextPart(text="What number?")))
    req = Request(task="t", sample_id="q1", messages=(msg,), generation=GREEDY)
    backend = create_backend(f"hf/{qwen2_audio_dir}", options=BackendOptions())  # auto class from the config
    resp = await backend.generate(req)
    assert resp.media["audio"]["sample_rate"] == 16000
    import soxr
    import torch
    from transformers import AutoProcessor, Qwen2AudioForConditionalGeneration

    proc = AutoProcessor.from_pretrained(qwen2_audio_dir)
    model = Qwen2AudioForConditionalGeneration.from_pretrained(qwen2_audio_dir)
    msgs = [{"role": "user", "content": [{"type": "audio"}, {"type": "text", "text": "What number?"}]}]
    text = proc.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
    enc = proc(
        text=[text], audio=[soxr.resample(tone, 8000, 16000)], sampling_rate=16000, return_tensors="pt"
    )
    with torch.inference_mode():
        ids = model.generate(**enc, max_new_tokens=6, do_sample=False)[
            0, enc["input_ids"].shape[1] :
        ].tolist()
    eos = proc.tokenizer.eos_token_id
    ids = ids[: ids.index(eos)] if eos in ids else ids
    assert resp.text == proc.tokenizer.decode(ids, skip_special_tokens=True)


async def test_llava_takes_video_as_sampled_frames(llava_dir: Path, tmp_path: Path) -> None:
    clip = tiny_models.write_video(tmp_path / "clip.mp4", frames=30, fps=10)
    ref = MediaRef(kind="video", name="video", path=str(clip))
    msg = Message(role="user", content=(VideoPart(media=ref), TextPart(text="Which way?")))
    req = Request(
        task="t",
        sample_id="v1",
        messages=(msg,),
        generation=GREEDY,
        media_policy=MediaPolicy(video_fps=1.0, video_max_frames=8),
    )
    backend = create_backend(f"hf/{llava_dir}", options=BackendOptions())
    resp = await backend.generate(req)
    # 3 s at 1 fps: three frames, each an <image> in LLaVA's template (its processor has no video support)
    loaded = backend.loaded()  # type: ignore[attr-defined]
    per_image = (32 // 8) ** 2  # 4×4 patches of 8 px; CLS dropped by the "default" feature strategy
    text_only = len(loaded.tokenizer("USER: <image>\n<image>\n<image>\nWhich way?ASSISTANT:")["input_ids"])
    assert resp.usage.prompt_tokens == text_only + 3 * (per_image - 1)  # each <image> expands to 16 tokens
    assert "video" in resp.media


async def test_unknown_model_class_option_is_a_clear_error(llava_dir: Path, tmp_path: Path) -> None:
    Image.new("RGB", (8, 8), "blue").save(tmp_path / "b.png")
    backend = create_backend(f"hf/{llava_dir}", options=BackendOptions(extra={"model_class": "NoSuchModel"}))
    with pytest.raises(BackendError, match="NoSuchModel") as info:
        await backend.generate(_image_request(tmp_path / "b.png"))
    assert info.value.retryable is False


def _write_video(path: Path, *, n_frames: int, fps: int) -> None:
    import av

    with av.open(str(path), "w") as container:
        stream = container.add_stream("mpeg4", rate=fps)
        stream.width, stream.height, stream.pix_fmt = 32, 32, "yuv420p"
        for i in range(n_frames):
            arr = np.zeros((32, 32, 3), dtype=np.uint8)
            arr[:, : 4 * (i + 1)] = 255  # a bar that grows frame by frame
            for packet in stream.encode(av.VideoFrame.from_ndarray(arr, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


async def test_llava_video_equals_its_sampled_frames_as_images(llava_dir: Path, tmp_path: Path) -> None:
    video = tmp_path / "bar.mp4"
    _write_video(video, n_frames=8, fps=2)  # 4 s of video
    policy = MediaPolicy(video_fps=1.0, video_max_frames=3)
    ref = MediaRef(kind="video", name="video", path=str(video))
    msg = Message(role="user", content=(VideoPart(media=ref), TextPart(text="Where does the bar grow?")))
    request = Request(task="t", sample_id="v", messages=(msg,), generation=GREEDY, media_policy=policy)
    backend = create_backend(
        f"hf/{llava_dir}", options=BackendOptions(media_cache_dir=str(tmp_path / "cache"))
    )
    response = await backend.generate(request)
    applied = response.media["video"]
    # 1 fps over 4 s would be 4 frames; the budget of 3 forces uniform sampling
    assert applied["frames_sampled"] == 3 and applied["timestamps"] == [0.0, 1.5, 3.0], applied
    # the same frames sent as three images give the same answer: video = its sampled frames
    from omnieval.media.processor import processor_for

    frames = processor_for(policy, str(tmp_path / "cache")).video(ref).frames
    paths = []
    for i, frame in enumerate(frames):
        paths.append(tmp_path / f"f{i}.png")
        frame.pil().save(paths[-1])
    parts = [
        ImagePart(media=MediaRef(kind="image", name=f"image_{i}", path=str(p))) for i, p in enumerate(paths)
    ]
    as_images = Request(
        task="t",
        sample_id="i",
        generation=GREEDY,
        media_policy=policy,
        messages=(Message(role="user", content=(*parts, TextPart(text="Where does the bar grow?"))),),
    )
    assert (await backend.generate(as_images)).text == response.text
    await backend.aclose()


def test_what_a_model_folder_takes_is_read_once_per_folder_not_per_question(
    llava_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planning asks for every task and option check: re-reading the processor each time cost 12 × 8 s
    (Gemma's 33 MB tokenizer) in one run; a changed folder is read again."""
    from omnieval.backends.hf import loading
    from omnieval.backends.hf.backend import HFBackend

    loading._folder_modalities.cache_clear()
    loads: list[str] = []
    real = loading._load_processor

    def counting(path: str, gguf_file: str | None) -> tuple[object, object]:
        loads.append(path)
        return real(path, gguf_file)

    monkeypatch.setattr(loading, "_load_processor", counting)
    options = BackendOptions()
    answers = {HFBackend.accepts_for(str(llava_dir), options=options) for _ in range(5)}
    assert answers == {frozenset({"text", "image"})} and len(loads) == 1
    marker = llava_dir / "touched.txt"
    marker.write_text("x", encoding="utf-8")
    try:
        assert HFBackend.accepts_for(str(llava_dir), options=options) == frozenset({"text", "image"})
        assert len(loads) == 2
    finally:
        marker.unlink()
