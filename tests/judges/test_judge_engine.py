"""The judge engine called programmatically: retries, scale, divide_by, combine, classifier inputs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import ClassVar

import pytest

from omnieval.backends import Backend, BackendOptions, create_backend
from omnieval.judges import Judge
from omnieval.types import JudgeSpec, PluginRef, Request, Response, Sample

S = Sample(id="7")


def _replay(tmp_path: Path, response: object, *, sample_id: str = "7") -> Backend:
    path = tmp_path / "j.jsonl"
    path.write_text(
        json.dumps({"task": "t", "sample_id": sample_id, "response": response}) + "\n", encoding="utf-8"
    )
    return create_backend(f"replay/{path}")


def _judge(backend: Backend, **spec: object) -> Judge:
    return Judge("t", JudgeSpec(template="binary_equivalence", **spec), backend)  # type: ignore[arg-type]


def _run(judge: Judge, answer: str = "42") -> object:
    return asyncio.run(judge.judge(S, question="Q?", answer=answer, targets=("42",)))


def test_empty_judge_output_is_retried_then_judge_failed(tmp_path: Path) -> None:
    record = _run(_judge(_replay(tmp_path, ""), retries=1))
    assert record.value is None and "empty judge output" in record.reason
    assert len(record.calls[0].attempts) == 2 and record.calls[0].attempts[0].raw == ""


def test_a_sample_missing_from_the_replay_judge_is_judge_failed_without_retries(tmp_path: Path) -> None:
    record = _run(_judge(_replay(tmp_path, "1", sample_id="other"), retries=3))
    assert record.value is None and "has no response for task 't' sample '7'" in record.reason
    assert len(record.calls[0].attempts) == 1  # an endpoint failure is not a verdict to retry


def test_a_1_to_10_score_is_divided_and_range_checked(tmp_path: Path) -> None:
    spec = {
        "parser": PluginRef(name="judge_score"),
        "scale": (1.0, 10.0),
        "protocol": PluginRef(name="direct"),
    }
    assert _run(_judge(_replay(tmp_path, "Оценка: 7/10"), **spec)).value == pytest.approx(0.7)
    failed = _run(_judge(_replay(tmp_path, "[[0]]"), retries=0, **spec))
    assert failed.value is None and "outside the scale [1, 10]" in failed.reason


def test_generative_judge_without_template_is_a_config_error(tmp_path: Path) -> None:
    from omnieval.errors import ConfigError

    with pytest.raises(ConfigError, match="names no prompt template"):
        Judge("t", JudgeSpec(), _replay(tmp_path, "1"))


class _Classifier(Backend):
    """Labels 1 when the text after the last separator equals the gold; short 'tokens' = characters."""

    provider = "fake_classifier"
    classifies: ClassVar[bool] = True
    seen: ClassVar[list[str]] = []

    def sep_token(self) -> str:
        return "|"

    def truncations(self, text: str, *, max_tokens: int, offset: int) -> list[str]:
        keep = max_tokens - offset
        return [text] if len(text) <= keep else [text[:keep], text[-keep:]]

    async def generate(self, request: Request) -> Response:
        assert request.kind == "classify" and request.prompt is not None
        type(self).seen.append(request.prompt)
        _, gold, answer = [*request.prompt.split("|"), "", ""][:3]
        return Response(
            text="1" if answer.strip() == gold.strip() and gold else "0", extra={"probs": [0.5, 0.5]}
        )


def test_reference_match_on_a_classifier_follows_meras_candidates_and_truncation() -> None:
    _Classifier.seen = []
    judge = Judge(
        "t",
        JudgeSpec(protocol=PluginRef(name="reference_match", options={"max_tokens": 30, "offset": 5})),
        _Classifier("c", options=BackendOptions()),
    )
    record = asyncio.run(judge.judge(S, question="Q", answer="думаю, что это 41. ОТВЕТ: 42", targets=("42",)))
    assert [c.label for c in record.calls] == ["full:right", "full:left", "after_marker"]
    full = "Q|42|думаю, что это 41. ОТВЕТ: 42"
    assert _Classifier.seen[:2] == [full[:25], full[-25:]] and _Classifier.seen[2] == "Q|42|: 42"
    assert record.value == 0.0  # ": 42" is not "42": MERA splits on ОТВЕТ and keeps the colon
    again = asyncio.run(judge.judge(S, question="Q", answer="ОТВЕТ 42", targets=("42",)))
    assert again.value == 1.0 and [c.verdict for c in again.calls] == [0.0, 1.0]  # max over candidates
    plain = asyncio.run(judge.judge(S, question="Q", answer="42", targets=("42",)))
    assert [c.label for c in plain.calls] == ["full"]  # no marker: the tail is the same text, judged once
