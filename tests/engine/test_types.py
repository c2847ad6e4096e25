from __future__ import annotations

import pytest
from pydantic import ValidationError

from omnieval.types import GenerationConfig, ImagePart, MediaRef, Message, Request, Sample, TaskSpec, TextPart


def test_models_are_frozen_and_strict() -> None:
    sample = Sample(id="1", input="q", targets=("a",))
    with pytest.raises(ValidationError):
        Sample(id="1", input="q", unknown=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        sample.id = "2"  # type: ignore[misc]


def test_content_union_error_names_the_variant() -> None:
    with pytest.raises(ValidationError) as err:
        Message.model_validate({"role": "user", "content": [{"type": "image", "text": "x"}]})
    assert "image" in str(err.value)


def test_message_text_and_media() -> None:
    ref = MediaRef(kind="image", name="image", path="/a.png")
    msg = Message(role="user", content=(TextPart(text="a "), ImagePart(media=ref), TextPart(text="b")))
    assert msg.text == "a b"
    assert msg.media == (ref,)


def _request(**kw: object) -> Request:
    ref = MediaRef(kind="image", name="image", path="/a.png", sha256=str(kw.pop("sha", "h1")))
    msg = Message(role="user", content=(TextPart(text="q"), ImagePart(media=ref)))
    return Request(task="t", sample_id="1", messages=(msg,), **kw)  # type: ignore[arg-type]


def test_fingerprint_tracks_media_hash_generation_backend_and_model() -> None:
    base = _request().fingerprint(backend="openai", model="m")
    assert base == _request().fingerprint(backend="openai", model="m")
    assert base != _request(sha="h2").fingerprint(backend="openai", model="m")
    assert base != _request(generation=GenerationConfig(temperature=0.7)).fingerprint(
        backend="openai", model="m"
    )
    assert base != _request().fingerprint(backend="openai", model="m2")
    assert base != _request().fingerprint(backend="hf", model="m")
    # the task name and the variant label do not change what the model is asked
    assert base == _request(variant="p3").fingerprint(backend="openai", model="m")


def test_task_spec_score_must_name_a_metric() -> None:
    with pytest.raises(ValidationError, match="score"):
        TaskSpec(name="t", score="nope")
    assert TaskSpec(name="t").score_key == "exact_match"


def test_prediction_only_sample() -> None:
    assert not Sample(id="1", targets=("",)).has_targets
    assert Sample(id="1", targets=("x",)).has_targets
