"""Request building shared by hf and vLLM: chat dicts, fallback template, GGUF source resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.backends import BackendOptions
from omnieval.backends.hf.loading import gguf_cache_dir, resolve_source
from omnieval.backends.hf.prompting import FALLBACK_CHAT_TEMPLATE, build_prompt, to_hf_messages
from omnieval.errors import BackendError, ConfigError
from omnieval.types import ImagePart, MediaRef, Message, Request, TextPart, VideoPart

IMG = MediaRef(kind="image", name="image", path="/x.png")
VID = MediaRef(kind="video", name="video", path="/x.mp4")


def test_text_only_messages_keep_string_content_and_media_become_typed_parts() -> None:
    msgs = (
        Message(role="system", content="Be brief."),
        Message(role="user", content=(TextPart(text="Look: "), ImagePart(media=IMG), TextPart(text=" ok?"))),
    )
    assert to_hf_messages(msgs) == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look: "},
                {"type": "image"},
                {"type": "text", "text": " ok?"},
            ],
        },
    ]


def test_video_expands_to_frames_for_image_only_models() -> None:
    msgs = (Message(role="user", content=(VideoPart(media=VID), TextPart(text="Where?"))),)
    assert to_hf_messages(msgs)[0]["content"][0] == {"type": "video"}
    expanded = to_hf_messages(msgs, video_frames=[3])[0]["content"]
    assert [p["type"] for p in expanded] == ["image", "image", "image", "text"]


def test_fallback_template_joins_texts_for_base_models() -> None:
    req = Request(
        task="t",
        sample_id="s",
        messages=(
            Message(role="system", content="Реши пример."),
            Message(role="user", content="2 + 2 =\nОтвет:"),
        ),
    )
    built = build_prompt(req, processor=None, tokenizer=None)
    assert built.template == "fallback"
    assert built.text == "Реши пример.\n\n2 + 2 =\nОтвет:"
    assert "messages" in FALLBACK_CHAT_TEMPLATE


def test_completion_prompt_is_used_verbatim_and_override_wins() -> None:
    req = Request(task="t", sample_id="s", messages=(Message(role="user", content="q"),), prompt="Q: q\nA:")
    assert build_prompt(req, processor=None, tokenizer=None).text == "Q: q\nA:"
    chat = Request(task="t", sample_id="s", messages=(Message(role="user", content="q"),))
    built = build_prompt(chat, processor=None, tokenizer=None, override="<<{{ messages[0].content }}>>")
    assert (built.text, built.template) == ("<<q>>", "override")


def test_media_without_any_chat_template_is_a_clear_error() -> None:
    req = Request(task="t", sample_id="s7", messages=(Message(role="user", content=(ImagePart(media=IMG),)),))
    with pytest.raises(BackendError, match=r"'s7'.*no chat template.*image") as info:
        build_prompt(req, processor=None, tokenizer=None)
    assert info.value.retryable is False


def test_gguf_sources_and_conversion_cache_key(tmp_path: Path) -> None:
    f = tmp_path / "m.gguf"
    f.write_bytes(b"GGUF" + bytes(100))
    opts = BackendOptions(extra={"gguf_cache_dir": str(tmp_path / "c")})
    assert resolve_source(str(f), options=opts).gguf_file == "m.gguf"
    by_option = resolve_source(str(tmp_path), options=BackendOptions(extra={"gguf_file": "m.gguf"}))
    assert (by_option.path, by_option.gguf_file) == (str(tmp_path), "m.gguf")
    key = gguf_cache_dir(resolve_source(str(f), options=opts), options=opts)
    assert key is not None and key.parent == tmp_path / "c" / "gguf" and key.name.startswith("m-")
    f.write_bytes(b"GGUF" + bytes(101))  # a different file gets a different folder
    assert gguf_cache_dir(resolve_source(str(f), options=opts), options=opts) != key
    off = BackendOptions(extra={"gguf_cache": False})
    assert gguf_cache_dir(resolve_source(str(f), options=off), options=off) is None
    with pytest.raises(ConfigError, match=r"missing\.gguf"):
        resolve_source(str(tmp_path / "missing.gguf"), options=opts)
