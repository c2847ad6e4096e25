"""The one public module (issue 32): ``import omnieval`` gives the API and its typed results, quiet is
quiet, and a library call leaves the process's tuning alone."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

import omnieval
from omnieval.backends import Backend, BackendOptions
from omnieval.errors import StoreError
from omnieval.types import Request, Response


def _task(tmp_path: Path, n: int = 4) -> Path:
    rows = [{"id": f"s{i}", "question": f"{i}+{i}?", "answer": str(2 * i)} for i in range(n)]
    path = tmp_path / "ARITH.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


class _Failing(Backend):
    """Answers every other sample with a backend error (a sample in ``error``: a warning)."""

    provider = "failing"

    async def generate(self, request: Request) -> Response:
        text = request.messages[-1].content
        if "1+1" in str(text):
            return Response.from_error("HTTP 500: the server fell over")
        return Response(text="4")


def test_the_api_and_its_result_types_are_the_package_s() -> None:
    assert set(omnieval.__all__) >= {
        "evaluate",
        "score",
        "rejudge",
        "compare",
        "report",
        "sweep",
        "load_results",
        "EvalResults",
        "Comparison",
        "LeaderboardFile",
        "ResultsFile",
        "SampleResult",
        "TaskResults",
    }
    for name in omnieval.__all__:
        assert getattr(omnieval, name) is not None, name
    assert omnieval.evaluate.__module__ == "omnieval.api"
    with pytest.raises(AttributeError, match="no attribute 'library'"):
        omnieval.library  # noqa: B018  (the second façade is gone)


def test_import_omnieval_stays_cheap() -> None:
    code = "import sys, omnieval; print(sorted(m for m in sys.modules if m.startswith('omnieval')))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "['omnieval', 'omnieval.version']"


def test_evaluate_in_memory_returns_typed_results_with_samples_and_prints_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The external acceptance check: decoding keywords, ``.tasks[NAME].score`` and ``.samples``."""
    r = omnieval.evaluate(
        tasks=[f"jsonl:{_task(tmp_path)}"], model="baseline/oracle", temperature=0.0, max_tokens=5, quiet=True
    )
    assert capfd.readouterr() == ("", "")
    assert isinstance(r, BaseModel) and isinstance(r, omnieval.EvalResults)
    assert r.tasks["ARITH"].score == 1.0 and r.run_dir is None
    assert sorted((s.sample_id, s.score, s.state) for s in r.samples) == [
        (f"s{i}", 1.0, "ok") for i in range(4)
    ]
    assert all(isinstance(s, omnieval.SampleResult) for s in r.samples)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ARITH.jsonl"]  # nothing left behind
    with pytest.raises(Exception, match="frozen"):
        r.failure = "x"  # type: ignore[misc]


def test_decoding_keywords_reach_the_requests(tmp_path: Path) -> None:
    seen: list[tuple[float | None, int | None]] = []

    class Recording(Backend):
        provider = "recording"

        async def generate(self, request: Request) -> Response:
            seen.append((request.generation.temperature, request.generation.max_tokens))
            return Response(text="0")

    model = Recording("r", options=BackendOptions())
    omnieval.evaluate(
        model=model, tasks=[f"jsonl:{_task(tmp_path)}"], temperature=0.25, max_tokens=7, quiet=True
    )
    assert seen and set(seen) == {(0.25, 7)}


def test_without_quiet_a_run_reports_each_task(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The other side of quiet: the same run not quiet prints its per-task lines (stderr is no terminal)."""
    omnieval.evaluate(tasks=[f"jsonl:{_task(tmp_path)}"], model="baseline/oracle")
    assert "[omnieval] ARITH:" in capfd.readouterr().err


def test_quiet_still_prints_warnings(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    task = f"jsonl:{_task(tmp_path)}"
    r = omnieval.evaluate(model=_Failing("f", options=BackendOptions()), tasks=[task], quiet=True)
    out, err = capfd.readouterr()
    assert out == "" and r.states["error"] == 1
    assert "ARITH" in err and "error" in err and "[omnieval] ARITH:" not in err
    omnieval.evaluate(model="baseline/oracle", tasks=[task], sample_ids=["s1", "nope"], quiet=True)
    out, err = capfd.readouterr()
    assert out == "" and err.strip() == (
        "omnieval: warning: --sample-ids: no task has sample id(s) 'nope'; they were not run"
    )


def test_the_cli_run_quiet_prints_nothing(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "omnieval", "run", "-t", f"jsonl:{_task(tmp_path)}", "-m", "baseline/oracle"]
    proc = subprocess.run([*cmd, "-o", str(tmp_path / "run"), "--quiet"], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert omnieval.load_results(tmp_path / "run").tasks["ARITH"].score == 1.0
    loud = subprocess.run([*cmd, "-o", str(tmp_path / "loud")], capture_output=True, text=True)
    assert loud.returncode == 0 and "report:" in loud.stdout  # the summary, when not quiet


def test_a_library_call_changes_no_process_wide_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the collector, not the switch interval (not even while the tail's warm-up thread loads), not
    the environment: those are the console script's (omnieval.cli.startup)."""
    import omnieval.reports.html as html

    during: list[float] = []
    monkeypatch.setattr(html, "warm_up", lambda: during.append(sys.getswitchinterval()))
    gc.set_threshold(*gc.get_threshold())
    before = (gc.isenabled(), gc.get_threshold(), sys.getswitchinterval(), dict(os.environ))
    omnieval.evaluate(
        model="baseline/oracle",
        tasks=[f"jsonl:{_task(tmp_path)}"],
        output=tmp_path / "r",
        warm_up=True,
        quiet=True,
    )
    assert (gc.isenabled(), gc.get_threshold(), sys.getswitchinterval(), dict(os.environ)) == before
    assert during == [before[2]]


def test_load_results_reads_the_samples_back(tmp_path: Path) -> None:
    first = omnieval.evaluate(
        model="baseline/oracle", tasks=[f"jsonl:{_task(tmp_path)}"], output=tmp_path / "r"
    )
    again = omnieval.load_results(tmp_path / "r")
    assert again.run_dir == tmp_path / "r" and again.samples == first.samples and len(again.samples) == 4
    assert again.results == first.results


@pytest.mark.parametrize("where", ["top", "task"])
def test_load_results_refuses_an_unknown_key_naming_it(tmp_path: Path, where: str) -> None:
    run = tmp_path / "r"
    omnieval.evaluate(model="baseline/oracle", tasks=[f"jsonl:{_task(tmp_path)}"], output=run, quiet=True)
    document = json.loads((run / "results.json").read_text(encoding="utf-8"))
    block = document if where == "top" else document["tasks"]["ARITH"]
    block["surprise_key"] = 1
    (run / "results.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(StoreError) as err:
        omnieval.load_results(run)
    assert "surprise_key" in str(err.value) and str(run / "results.json") in str(err.value)


def test_compare_and_sweep_return_typed_models(tmp_path: Path) -> None:
    task = f"jsonl:{_task(tmp_path)}"
    board = omnieval.sweep(
        models=["baseline/oracle", "baseline/random"], tasks=[task], output=tmp_path / "s", quiet=True
    )
    assert isinstance(board, omnieval.LeaderboardFile) and board.rows[0]["spec"] == "baseline/oracle"
    runs = [Path(p) for p in board.runs.values()]
    comparison = omnieval.compare(*runs)
    assert isinstance(comparison, omnieval.Comparison)
    assert comparison.runs == ("baseline_oracle", "baseline_random")
    assert comparison.tasks["ARITH"].scores["baseline_oracle"] == 1.0
    assert comparison.tasks["ARITH"].pairwise[0].n_paired == 4


def test_evaluate_takes_hook_objects(tmp_path: Path) -> None:
    from omnieval.hooks import RunHook

    finished: list[float | None] = []

    class Scores(RunHook):
        def run_finished(self, run_dir: Path, results: omnieval.ResultsFile) -> None:
            finished.append(results.tasks["ARITH"].score)

    r = omnieval.evaluate(
        model="baseline/oracle", tasks=[f"jsonl:{_task(tmp_path)}"], hooks=[Scores()], quiet=True
    )
    assert finished == [1.0] and r.tasks["ARITH"].score == 1.0
    with pytest.raises(TypeError, match="hook objects need a PROVIDER/NAME"):
        omnieval.evaluate(
            model=_Failing("f", options=BackendOptions()), tasks=["x"], hooks=[Scores()], quiet=True
        )
