"""``omnieval.evaluate(model=(model, processor))``: a transformers model already in memory is evaluated
exactly as the same weights loaded by ``hf/PATH``."""

from __future__ import annotations

import json
from pathlib import Path

import omnieval


def _responses(run: Path) -> dict[str, str]:
    lines = (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return {rec["sample_id"]: rec["response"] for rec in map(json.loads, lines)}


def test_a_loaded_model_and_tokenizer_answer_as_hf_path_does(llama_dir: Path, tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    rows = [{"id": str(i), "question": f"{i} plus {i}?", "answer": str(2 * i)} for i in range(3)]
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    options = {"tasks": [f"jsonl:{data}"], "max_tokens": 4, "quiet": True, "cache": False}
    by_path = omnieval.evaluate(model=f"hf/{llama_dir}", output=tmp_path / "path", **options)
    model, tokenizer = (
        AutoModelForCausalLM.from_pretrained(llama_dir),
        AutoTokenizer.from_pretrained(llama_dir),
    )
    in_memory = omnieval.evaluate(model=(model, tokenizer), output=tmp_path / "memory", **options)
    assert in_memory.model == f"hf/{llama_dir}" and in_memory.tasks["qa"].n == 3
    assert in_memory.tasks["qa"].score == by_path.tasks["qa"].score
    assert _responses(tmp_path / "memory") == _responses(tmp_path / "path")
    assert any(_responses(tmp_path / "path").values())  # the tiny model does answer something
