"""Run hooks: every event reaches a hook, and a hook that fails never changes or stops the evaluation."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest

from omnieval.errors import ConfigError
from omnieval.hooks import HookDispatcher, HookInfo, RunHook, hooks
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.types.results import HookReport, ResultsFile


class Recording(RunHook):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.threads: set[str] = set()

    def run_started(self, info: HookInfo) -> None:
        self.events.append(("run_started", info.run_dir))

    def record(
        self, record: dict[str, Any], *, prompt: str | None = None, media: tuple[Any, ...] = ()
    ) -> None:
        self.threads.add(threading.current_thread().name)
        self.events.append(("record", (record["sample_id"], record["state"], prompt)))

    def task_finished(self, task: str, states: dict[str, int]) -> None:
        self.events.append(("task_finished", (task, states)))

    def run_finished(self, run_dir: Path, results: ResultsFile) -> None:
        self.events.append(("run_finished", results.tasks["qa"].score))

    def run_failed(self, run_dir: Path, error: str) -> None:
        self.events.append(("run_failed", error))


class Raising(RunHook):
    def record(
        self, record: dict[str, Any], *, prompt: str | None = None, media: tuple[Any, ...] = ()
    ) -> None:
        raise RuntimeError("tracker down")

    def run_finished(self, run_dir: Path, results: ResultsFile) -> None:
        raise RuntimeError("upload refused")


def _config(out: Path, qa_task: Path, answers: Path, **kw: Any) -> RunConfig:
    return RunConfig(tasks=(f"jsonl:{qa_task}",), model=f"replay/{answers}", output=out, quiet=True, **kw)


def test_a_hook_sees_start_each_record_task_end_and_finish_in_order(
    tmp_path, qa_task, replay_answers
) -> None:
    hook = Recording()
    _, results = evaluate_config(_config(tmp_path / "run", qa_task, replay_answers), hooks=[hook])
    kinds = [k for k, _ in hook.events]
    assert kinds == ["run_started", *["record"] * 10, "task_finished", "run_finished"]
    records = [v for k, v in hook.events if k == "record"]
    assert sorted(r[0] for r in records) == [str(i) for i in range(10)]
    assert all("+" in r[2] for r in records)  # the rendered prompt travels with the record
    assert hook.events[-2] == ("task_finished", ("qa", {"ok": 10}))
    assert hook.events[-1] == ("run_finished", 0.7)
    assert hook.threads == {"omnieval-hooks"}  # called off the event loop's thread
    report = results.hooks["Recording"]
    assert isinstance(report, HookReport) and report.failures == 0


def test_a_hook_raising_on_every_record_leaves_identical_results_and_is_counted(
    tmp_path, qa_task, replay_answers
) -> None:
    _, plain = evaluate_config(_config(tmp_path / "a", qa_task, replay_answers))
    _, hooked = evaluate_config(_config(tmp_path / "b", qa_task, replay_answers), hooks=[Raising()])
    assert "hooks" not in plain.document()
    report = hooked.hooks["Raising"]
    assert isinstance(report, HookReport)
    assert report.failures == 11  # ten records and the run's end
    assert report.first_error == "record: RuntimeError: tracker down"
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["hooks"]["Raising"]["failures"] == 11
    assert hooked.tasks["qa"].score == plain.tasks["qa"].score == 0.7
    unhashed = [r.tasks["qa"].model_copy(update={"hash": None}) for r in (plain, hooked)]
    assert unhashed[0] == unhashed[1] and hooked.states == plain.states
    a = (tmp_path / "a" / "samples.jsonl").read_text().splitlines()
    b = (tmp_path / "b" / "samples.jsonl").read_text().splitlines()
    assert len(a) == len(b) == 10


def test_a_failed_run_reaches_the_hook(tmp_path, qa_task) -> None:
    hook = Recording()
    config = RunConfig(
        tasks=(f"jsonl:{qa_task}",),
        model="openai/x",
        output=tmp_path / "run",
        quiet=True,
        backend={"base_url": "http://127.0.0.1:9/v1", "timeout_s": 2},
        breaker_threshold=1,
    )
    with pytest.raises(Exception):  # noqa: B017 - the endpoint-down error itself is tested elsewhere
        evaluate_config(config, hooks=[hook])
    assert hook.events[0][0] == "run_started" and hook.events[-1][0] == "run_failed"


def test_a_full_queue_drops_events_instead_of_waiting() -> None:
    gate = threading.Event()

    class Slow(RunHook):
        def record(self, record: dict[str, Any], **_: Any) -> None:
            gate.wait(5)

    dispatcher = HookDispatcher([("slow", Slow())], maxsize=2)
    for i in range(10):
        dispatcher.record({"task": "t", "sample_id": str(i)})  # returns at once, never blocks
    gate.set()
    report = dispatcher.close()
    assert (
        report["dropped_events"] >= 7 and report["slow"]["events"]["record"] + report["dropped_events"] == 10
    )


class NeedsMissing(RunHook):
    requires: ClassVar[str | None] = "omnieval_no_such_tracker"
    extra: ClassVar[str | None] = "faketracker"


if "faketracker" not in hooks.names():
    hooks.add("faketracker", NeedsMissing)


def test_a_missing_tracker_extra_is_named_before_the_run(tmp_path, qa_task, replay_answers) -> None:
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match=r"pip install 'omnieval\[faketracker\]'"):
        evaluate_config(_config(out, qa_task, replay_answers, log_to=("faketracker",)))
    assert not out.exists()  # refused before anything ran


def test_cli_log_to_an_uninstalled_extra_is_one_line(tmp_path, qa_task, replay_answers) -> None:
    script = (
        "import sys; from omnieval.hooks import hooks, RunHook\n"
        "class H(RunHook):\n    requires = 'omnieval_no_such_tracker'; extra = 'faketracker'\n"
        "hooks.add('faketracker', H)\n"
        "from omnieval.cli import main; sys.argv = ['omnieval'] + sys.argv[1:]; main()\n"
    )
    out = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            "run",
            "--tasks",
            f"jsonl:{qa_task}",
            "--model",
            f"replay/{replay_answers}",
            "--output",
            str(out),
            "--log-to",
            "faketracker",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "omnieval[faketracker]" in proc.stderr
    assert not (out / "samples.jsonl").exists()


def test_an_unknown_hook_name_is_refused(tmp_path, qa_task, replay_answers) -> None:
    with pytest.raises(Exception, match="unknown run hook 'wandbb'"):
        evaluate_config(_config(tmp_path / "run", qa_task, replay_answers, log_to=("wandbb",)))


def test_the_cli_names_a_failing_hook_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from omnieval.runs.notices import warn_on_hook_failures

    warn_on_hook_failures(
        {
            "wandb": HookReport(failures=3, first_error="record: OSError: x", events={}),
            "ok": HookReport(failures=0),
        }
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hook wandb failed 3 time(s) (first: record: OSError: x)" in err


def test_after_a_cluster_run_the_hooks_get_this_runs_records_read_back(tmp_path: Path) -> None:
    """Ray shards write records elsewhere; the records of this invocation (the last n per task) are
    replayed."""
    from omnieval.executors import _replay
    from omnieval.runner import RunOutcome

    out = tmp_path / "run"
    out.mkdir()
    lines = [
        {"task": t, "sample_id": str(i), "state": "ok", "score": 1.0} for t in ("a", "b") for i in range(4)
    ]
    (out / "samples.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    hook = Recording()
    dispatcher = HookDispatcher([("rec", hook)])
    outcome = RunOutcome(out, [], states={"a": {"ok": 1}, "b": {"ok": 3}})  # a: 3 from an earlier invocation
    _replay(RunConfig(tasks=("x",), model="m/x", output=out), outcome, dispatcher)
    dispatcher.close()
    records = [v[0] for k, v in hook.events if k == "record"]
    assert records == ["3", "1", "2", "3"]
    assert [v for k, v in hook.events if k == "task_finished"] == [("a", {"ok": 1}), ("b", {"ok": 3})]
