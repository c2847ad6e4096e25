"""A local model (``hf/``, ``vllm/``: an in-process backend) gets whole batches of ``--batch-size`` from
the runner. It used to get one request at a time: the runner gave it the single connection an in-process
backend declares, so a 64-sample run on a GPU made 64 batches of one (found on an H200, issue 21 notes)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from omnieval.backends import BackendOptions, InProcessBackend, backends
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.types import Request, Response
from tests.backends.e2e_helpers import write_task

BATCHES: list[int] = []


class BatchRecorder(InProcessBackend):
    """Answers the bracketed token of each question and notes each batch's size."""

    provider = "batch-recorder"

    def run_batch(self, requests: list[Request]) -> list[Response | BaseException]:
        BATCHES.append(len(requests))
        time.sleep(0.01)  # a model's forward pass: the next batch fills meanwhile
        answers = (re.search(r"\[(\d)\]", r.messages[-1].text) for r in requests)
        return [Response.from_text(m.group(1) if m else "") for m in answers]


if "batch-recorder" not in backends:
    backends.add("batch-recorder", BatchRecorder)


def test_a_local_model_answers_in_batches_of_batch_size(tmp_path: Path) -> None:
    task = write_task(tmp_path / "qa.jsonl", 64)
    BATCHES.clear()
    evaluate_config(
        RunConfig(
            tasks=(f"jsonl:{task}",),
            model="batch-recorder/m",
            output=tmp_path / "out",
            quiet=True,
            backend=BackendOptions(batch_size=8),
        )
    )
    assert sum(BATCHES) == 64, "every sample answered once"
    assert max(BATCHES) == 8 and len(BATCHES) <= 10, f"batches of --batch-size, got {BATCHES}"
