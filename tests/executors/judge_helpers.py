"""Pieces of the judged-run executor tests: a judged task, a counting local judge, records without timings.

The counting judge is registered when this module is imported; Ray worker processes import it through
the cluster's ``worker_process_setup_hook`` (:func:`register`), so a judge replica can build it by name.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from omnieval.backends import BackendOptions, InProcessBackend, backends
from omnieval.runner import JudgeConfig
from omnieval.types import Request, Response
from omnieval.types._base import Frozen
from tests.backends.e2e_helpers import write_task
from tests.executors.helpers import CountingServer, records

JUDGED_TASK = """\
name: qaj
source: {type: jsonl, path: qa.jsonl}
prompt: {template: "{{ input }}"}
metrics: [{name: exact_match, alias: em}]
judge: {key: js, protocol: direct, template: binary_equivalence, parser: judge_binary, scale: [0, 1]}
"""

VERDICT = r"Вопрос \d*(\d):"
"""The verdict either judge gives: the last digit of the sample's number. 0 and 1 are verdicts; 2-9 are
outside the scale [0, 1], retried, then ``judge_failed``."""


def api_judge(server: CountingServer, *, concurrency: int) -> JudgeConfig:
    """``openai/judge`` on ``server`` (one retry), which from now on answers each judge prompt with the
    verdict of :data:`VERDICT`."""
    server.answer_pattern = re.compile(VERDICT)
    options = BackendOptions(base_url=server.url, concurrency=concurrency, timeout_s=30)
    return JudgeConfig(model="openai/judge", retries=1, backend=options)


def judged_task(root: Path, n: int) -> Path:
    write_task(root / "qa.jsonl", n)
    (root / "qaj.yaml").write_text(JUDGED_TASK, encoding="utf-8")
    return root / "qaj.yaml"


class CountingJudgeOptions(Frozen):
    delay_s: float = 0.0
    """Seconds each batch takes (a judge slow enough to be killed mid-run)."""


class CountingJudge(InProcessBackend):
    """A local judge that appends its process id to the file named by its model at each construction."""

    provider = "counting-judge"
    extra_options = CountingJudgeOptions

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        failures = Path(f"{model}.fail")  # N in it: the next N constructions fail (a load that dies)
        if failures.exists() and (left := int(failures.read_text() or 0)) > 0:
            failures.write_text(str(left - 1))
            raise RuntimeError("the judge failed to load")
        with open(model, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")

    def run_batch(self, requests: list[Request]) -> list[Response | BaseException]:
        assert isinstance(self.settings, CountingJudgeOptions)
        time.sleep(self.settings.delay_s)
        out: list[Response | BaseException] = []
        for request in requests:
            match = re.search(VERDICT, request.messages[-1].text)
            out.append(Response.from_text(match.group(1) if match else "no verdict"))
        return out


def register() -> None:
    """Make ``counting-judge/`` known in this process (a Ray worker's setup hook)."""
    if "counting-judge" not in backends:
        backends.add("counting-judge", CountingJudge)


register()


def counting_judge_env() -> dict[str, Any]:
    """A ``runtime_env`` under which every Ray worker imports ``tests`` and knows the counting judge."""
    root = str(Path(__file__).resolve().parents[2])  # where ``tests`` is importable from
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    return {
        "worker_process_setup_hook": "tests.executors.judge_helpers.register",
        "env_vars": {"PYTHONPATH": path},
    }


def constructions(path: Path) -> list[int]:
    return [int(x) for x in path.read_text(encoding="utf-8").split()] if path.exists() else []


def judged_record_set(out: Path) -> set[str]:
    """Records as a set without call timings (``latency_s`` of the sample and of each judge attempt)."""
    rows = []
    for record in records(out):
        record = {k: v for k, v in record.items() if k != "latency_s"}
        if record.get("judge"):
            calls = [
                {**c, "attempts": [{k: v for k, v in a.items() if k != "latency_s"} for a in c["attempts"]]}
                for c in record["judge"]["calls"]
            ]
            record["judge"] = {**record["judge"], "calls": calls}
        rows.append(json.dumps(record, sort_keys=True))
    return set(rows)


def judge_calls(out: Path) -> int:
    """Judge requests the run's records account for (every attempt of every call)."""
    return sum(len(c["attempts"]) for r in records(out) if r.get("judge") for c in r["judge"]["calls"])


def states(out: Path) -> dict[str, Any]:
    """The run's sample states that occurred (results.json lists every state, with zeros)."""
    counts = json.loads((out / "results.json").read_text(encoding="utf-8"))["states"]
    return {k: v for k, v in counts.items() if v}
