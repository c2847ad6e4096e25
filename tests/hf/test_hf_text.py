"""The hf backend on a tiny Llama: batching, finish reasons, stop strings, loglikelihood, templates."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import tiny_models

from omnieval.backends import BackendOptions, create_backend
from omnieval.errors import BackendError, ConfigError
from omnieval.types import GenerationConfig, Message, Request, Response

PROMPTS = [
    "2 + 2 =",
    "The capital of France is",
    "Сколько кругов на картинке? Ответ:",
    "red blue green 1 2 3",
]


def _req(text: str, sid: str, **gen: object) -> Request:
    config = GenerationConfig(**{"temperature": 0.0, "max_tokens": 8, **gen})  # type: ignore[arg-type]
    return Request(task="t", sample_id=sid, messages=(Message(role="user", content=text),), generation=config)


def _ok(results: list[Response | BaseException]) -> list[Response]:
    assert all(isinstance(r, Response) for r in results), results
    return [r for r in results if isinstance(r, Response)]


async def test_batch_of_four_equals_batch_of_one(llama_dir: Path) -> None:
    reqs = [_req(p, str(i)) for i, p in enumerate(PROMPTS)]
    one = _ok(
        await create_backend(f"hf/{llama_dir}", options=BackendOptions(batch_size=1)).generate_many(reqs)
    )
    four = _ok(
        await create_backend(f"hf/{llama_dir}", options=BackendOptions(batch_size=4)).generate_many(reqs)
    )
    assert [r.text for r in one] == [r.text for r in four]
    assert [r.usage.prompt_tokens for r in one] == [r.usage.prompt_tokens for r in four]
    assert {r.extra["batch_size"] for r in four} == {4} and {r.extra["batch_size"] for r in one} == {1}
    assert any(r.text for r in one)


async def test_no_template_uses_documented_fallback_and_length_finish(llama_dir: Path) -> None:
    backend = create_backend(f"hf/{llama_dir}", options=BackendOptions())
    resp = _ok(await backend.generate_many([_req("2 + 2 =", "a", max_tokens=3)]))[0]
    assert resp.extra["template"] == "fallback"
    # random weights essentially never emit </s> within 3 steps: generation stops on the token budget
    assert resp.usage.completion_tokens == 3
    assert resp.finish_reason == "length"
    loaded = backend.loaded()  # type: ignore[attr-defined]
    ids = loaded.tokenizer("2 + 2 =")["input_ids"]
    assert resp.usage.prompt_tokens == len(ids)


async def test_stop_string_truncates_and_finishes_with_stop(llama_dir: Path) -> None:
    backend = create_backend(f"hf/{llama_dir}", options=BackendOptions())
    full = _ok(await backend.generate_many([_req("The capital of France is", "a", max_tokens=10)]))[0].text
    assert len(full) >= 4
    stop = full[2:4]
    cut = _ok(
        await backend.generate_many([_req("The capital of France is", "a", max_tokens=10, stop=(stop,))])
    )[0]
    assert cut.text == full[: full.find(stop)]
    assert cut.finish_reason == "stop"


async def test_sampling_is_seeded(llama_dir: Path) -> None:
    backend = create_backend(f"hf/{llama_dir}", options=BackendOptions())
    reqs = [_req("2 + 2 =", "a", temperature=1.0, seed=7), _req("2 + 2 =", "b", temperature=1.0, seed=7)]
    first = _ok(await backend.generate_many(reqs[:1]))[0]
    again = _ok(await backend.generate_many(reqs[1:]))[0]
    greedy = _ok(await backend.generate_many([_req("2 + 2 =", "c")]))[0]
    assert first.usage.completion_tokens == 8 and first.text.strip()  # something really was sampled
    assert first.text == again.text  # same seed, same sample
    seeds = [_req("2 + 2 =", f"s{s}", temperature=1.0, seed=s) for s in (1, 2, 3)]
    others = [r.text for r in _ok(await backend.generate_many(seeds))]
    # a random-weight model's next-token distribution is nearly flat: other seeds give other text
    assert len({first.text, *others}) > 1
    assert (
        greedy.text == _ok(await backend.generate_many([_req("2 + 2 =", "d", seed=99)]))[0].text
    )  # greedy ignores seeds


def _hand_logprob(model_dir: Path, prompt: str, continuation: str) -> float:
    """Independent reference: each continuation token scored with an unbatched forward pass."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    ctx = tok(prompt)["input_ids"]
    full = tok(prompt + continuation)["input_ids"]
    assert full[: len(ctx)] == ctx
    total = 0.0
    with torch.inference_mode():
        for pos in range(len(ctx), len(full)):
            logits = model(input_ids=torch.tensor([full[:pos]])).logits[0, -1]
            total += float(torch.log_softmax(logits, dim=-1)[full[pos]])
    return total


async def test_loglikelihood_scores_each_choice_and_answers_letter(llama_dir: Path) -> None:
    choices = (" Paris", " red blue", " 3")
    req = Request(
        task="t",
        sample_id="ll",
        messages=(Message(role="user", content="The capital of France is"),),
        kind="loglikelihood",
        continuations=choices,
    )
    resp = await create_backend(f"hf/{llama_dir}", options=BackendOptions(batch_size=2)).generate(req)
    expected = [_hand_logprob(llama_dir, "The capital of France is", c) for c in choices]
    assert resp.logprobs is not None
    assert all(math.isclose(a, b, abs_tol=1e-4) for a, b in zip(resp.logprobs, expected, strict=True))
    assert resp.text == "ABC"[max(range(3), key=expected.__getitem__)]


async def test_loglikelihood_without_continuations_is_an_error(llama_dir: Path) -> None:
    req = Request(
        task="t", sample_id="e", messages=(Message(role="user", content="x"),), kind="loglikelihood"
    )
    with pytest.raises(BackendError, match="without continuations"):
        await create_backend(f"hf/{llama_dir}", options=BackendOptions()).generate(req)


async def test_model_chat_template_is_applied(tmp_path: Path) -> None:
    template = "{% for m in messages %}<s>[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}[assistant]"
    model_dir = tiny_models.build_llama(tmp_path / "chat", chat_template=template)
    backend = create_backend(f"hf/{model_dir}", options=BackendOptions())
    resp = _ok(await backend.generate_many([_req("2 + 2 =", "a", max_tokens=2)]))[0]
    loaded = backend.loaded()  # type: ignore[attr-defined]
    # the rendered text starts with BOS, so no second BOS is added
    assert resp.usage.prompt_tokens == len(
        loaded.tokenizer("<s>[user] 2 + 2 =\n[assistant]", add_special_tokens=False)["input_ids"]
    )
    assert resp.extra["template"] == "model"


async def test_missing_model_is_a_clear_error_before_any_request(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"nope\.gguf.*no such local model folder or file|no such local model.*nope\.gguf"
    ):
        create_backend(f"hf/{tmp_path / 'nope.gguf'}", options=BackendOptions())


async def test_dtype_and_device_options_and_manifest_description(llama_dir: Path) -> None:
    import torch

    backend = create_backend(f"hf/{llama_dir}", options=BackendOptions(device="cpu", dtype="bfloat16"))
    resp = _ok(await backend.generate_many([_req("2 + 2 =", "a", max_tokens=2)]))[0]
    assert resp.usage.completion_tokens is not None and resp.usage.completion_tokens >= 1
    info = backend.describe()
    assert info["device"] == "cpu" and info["dtype"] == str(torch.bfloat16) and info["modalities"] == ["text"]
    bad = create_backend(f"hf/{llama_dir}", options=BackendOptions(dtype="float8"))
    with pytest.raises(BackendError, match="unknown dtype 'float8'"):
        await bad.generate(_req("x", "a"))


async def test_generation_leaves_the_event_loop_free(llama_dir: Path) -> None:
    import asyncio

    backend = create_backend(f"hf/{llama_dir}", options=BackendOptions())
    backend.loaded()  # type: ignore[attr-defined]
    ticks = 0
    job = asyncio.ensure_future(
        backend.generate_many([_req(p, str(i), max_tokens=40) for i, p in enumerate(PROMPTS)])
    )
    while not job.done():
        await asyncio.sleep(0.005)
        ticks += 1
    assert all(isinstance(r, Response) for r in job.result())
    assert ticks >= 3  # the loop kept running while the model generated in a worker thread


async def test_rows_stopped_early_in_a_batch_count_no_padding(llama_dir: Path) -> None:
    backend = create_backend(f"hf/{llama_dir}", options=BackendOptions(batch_size=4))
    free = _ok(await backend.generate_many([_req(p, str(i), max_tokens=10) for i, p in enumerate(PROMPTS)]))
    stop = free[0].text[1:3]
    assert stop
    reqs = [_req(p, str(i), max_tokens=10, stop=(stop,)) for i, p in enumerate(PROMPTS)]
    stopped = _ok(await backend.generate_many(reqs))
    first = stopped[0]
    assert first.text == free[0].text[: free[0].text.find(stop)] and first.finish_reason == "stop"
    # the first row stopped early; its count is the tokens it generated, not the batch's padding
    assert first.usage.completion_tokens is not None and first.usage.completion_tokens < 10
    assert first.raw_text is not None and first.raw_text.startswith(first.text + stop)


async def test_broken_chat_template_fails_only_its_sample(llama_dir: Path) -> None:
    bad = "{{ messages[0].content | no_such_filter }}"
    backend = create_backend(f"hf/{llama_dir}", options=BackendOptions(extra={"chat_template": bad}))
    [out] = await backend.generate_many([_req("2 + 2 =", "tpl")])
    assert isinstance(out, BackendError) and "'tpl'" in str(out) and "no_such_filter" in str(out)
